#!/usr/bin/env bash
# What faulting in fresh memory costs on this machine, in huge pages
# (madvise MADV_HUGEPAGE) and in small ones, outside PostgreSQL: the
# question behind gpusort.huge_pages = auto (src/runtime/settings.c).
#
#   bench/sort/fault_in.sh [MB]      default 330 (a 2*10^6-row sort's rows)
#
# A small C program maps MB of anonymous memory, advises it (huge or not),
# writes one byte a page and prints the time, the system CPU time and the
# minor faults.  Each kind runs GS_BENCH_ROUNDS times (default 3) after
# GS_BENCH_IDLE seconds idle (default 5: time for a VM's balloon to report
# freed memory to the host, which then backs it anew), then three times
# back to back in one process (memory just freed, not yet reported).
# Prints the kernel's transparent_hugepage policy, its compaction stalls,
# and whether a virtio balloon reports free pages, first.
set -uo pipefail

MB=${1:-330}
ROUNDS=${GS_BENCH_ROUNDS:-3}
IDLE=${GS_BENCH_IDLE:-5}
dir=$(mktemp -d /tmp/gpusort-fault.XXXXXX)
trap 'rm -rf "$dir"' EXIT

cat >"$dir/fault_in.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

static double
ms_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double
sys_ms(const struct rusage *u)
{
	return u->ru_stime.tv_sec * 1e3 + u->ru_stime.tv_usec / 1e3;
}

int
main(int argc, char **argv)
{
	size_t		huge = (size_t) 2 << 20;
	size_t		size = (size_t) atol(argv[1]) << 20;
	int			advise = atoi(argv[2]);
	int			reps = atoi(argv[3]);

	for (int r = 0; r < reps; r++)
	{
		char	   *map = mmap(NULL, size + huge, PROT_READ | PROT_WRITE,
							   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char	   *p = (char *) (((unsigned long) map + huge - 1) & ~(huge - 1));
		struct rusage u0, u1;
		double		t0, t1;

		if (map == MAP_FAILED)
			return 1;
		madvise(p, size, advise ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
		getrusage(RUSAGE_SELF, &u0);
		t0 = ms_now();
		for (size_t i = 0; i < size; i += 4096)
			p[i] = 1;
		t1 = ms_now();
		getrusage(RUSAGE_SELF, &u1);
		printf("%.0f %.0f %ld\n", t1 - t0, sys_ms(&u1) - sys_ms(&u0),
			   u1.ru_minflt - u0.ru_minflt);
		munmap(map, size + huge);
	}
	return 0;
}
EOF
cc -O2 -o "$dir/fault_in" "$dir/fault_in.c" || exit 1

reporting=no
for d in /sys/bus/virtio/devices/*; do
	[ "$(cat "$d/device" 2>/dev/null)" = 0x0005 ] || continue
	[ "$(cut -c6 "$d/features" 2>/dev/null)" = 1 ] && reporting=yes
done
echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); $(nproc) cores; kernel $(uname -r)"
echo "transparent_hugepage enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null); defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null)"
echo "compact_stall since boot: $(awk '$1 == "compact_stall" { print $2 }' /proc/vmstat); virtio balloon reports free pages: $reporting"
echo
echo "| pages | when | ms | system CPU ms | minor faults |"
echo "|---|---|---:|---:|---:|"
for kind in huge small; do
	adv=$([ $kind = huge ] && echo 1 || echo 0)
	for ((r = 1; r <= ROUNDS; r++)); do
		sleep "$IDLE"
		"$dir/fault_in" "$MB" "$adv" 1 | awk -v k=$kind -v w="after ${IDLE} s idle" '{ printf "| %s | %s | %s | %s | %s |\n", k, w, $1, $2, $3 }'
	done
	sleep "$IDLE"
	"$dir/fault_in" "$MB" "$adv" 3 | awk -v k=$kind '{ printf "| %s | %s | %s | %s | %s |\n", k, NR == 1 ? "back to back, 1st" : "back to back, " NR (NR == 2 ? "nd" : "rd"), $1, $2, $3 }'
done
