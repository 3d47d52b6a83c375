# The GPU machine has no PostgreSQL of its own (test/gpu/README.md).  Sourced
# with the repository as $1 by what runs there (test/gpu/run,
# bench/sort/e2e_gpu.sh, bench/tree/tree_gpu.sh): when no pg_config is on
# PATH, it puts the PostgreSQL 15 of the bundle in .device/ there; and when
# the ICU headers that PostgreSQL's pg_locale.h includes are missing (the
# bundle may lack them), it unpacks .device/icu-include.tar.gz (usr/include/
# unicode of the machine that made the bundle).  It sets no shell options.
gs_src=$1
if ! command -v pg_config >/dev/null && [ -f "$gs_src/.device/pg15.tar.gz" ]; then
	. "$gs_src/.device/pg-on-device.sh" "$gs_src/.device/pg15.tar.gz"
fi
if ! echo '#include <unicode/ucol.h>' | cpp -x c - >/dev/null 2>&1 &&
	[ -f "$gs_src/.device/icu-include.tar.gz" ]; then
	tar -C / -xzf "$gs_src/.device/icu-include.tar.gz"
fi
unset gs_src
