# Unpacks a bundle made by test/gpu/make-pg-bundle.sh on the GPU machine and
# puts its PostgreSQL on PATH.  Source it, don't run it:
#     . test/gpu/pg-on-device.sh .device/pg17.tar.gz
# (it sets no shell options, so the caller's stay as they were)
gs_bundle=${1:-.device/pg15.tar.gz}
tar -C / --no-overwrite-dir -xzf "$gs_bundle" || return 1
# the major version: the bundle's /opt/pgdepsN/PG_MAJOR, else its name
gs_pgv=$(tar -tzf "$gs_bundle" 2>/dev/null | sed -n 's,^opt/pgdeps\([0-9]*\)/PG_MAJOR$,\1,p' | head -1)
[ -n "$gs_pgv" ] || gs_pgv=$(basename "$gs_bundle" | sed -n 's/^pg\([0-9]*\)\..*/\1/p')
export GS_PGVER=$gs_pgv
export PATH=/usr/lib/postgresql/$GS_PGVER/bin:$PATH
for gs_d in /opt/pgdeps$GS_PGVER/lib /opt/pgdeps/lib; do
	[ -d "$gs_d" ] && export LD_LIBRARY_PATH=$gs_d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} && break
done
unset gs_bundle gs_pgv gs_d
id postgres >/dev/null 2>&1 || useradd -m postgres || return 1
postgres --version
