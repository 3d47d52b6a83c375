/*
 * membudget_test.c
 *	  src/memory/membudget.c's cgroup readers on fixture trees: cgroup v2 with a
 *	  limit in the group or in an ancestor, "max" everywhere, v1 with and
 *	  without hierarchical_memory_limit, v1's "unlimited" value, a container's
 *	  view (mount root = the group), a hybrid system, no cgroup at all, and
 *	  the parsers on their own.  Built and run by membudget.sh.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "memory/membudget.h"
#include "check.h"

static char base[512];

/* writes base/case/name, creating its directories */
static void
put(const char *tc, const char *name, const char *text)
{
	char		path[1024];
	char	   *p;
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s%s", base, tc, name);
	for (p = path + strlen(base) + 1; (p = strchr(p, '/')) != NULL; p++)
	{
		*p = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
		{
			perror(path);
			exit(2);
		}
		*p = '/';
	}
	f = fopen(path, "w");
	if (!f)
	{
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

#define MI_V2 "30 23 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
#define MI_V1 "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n" \
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"

static void
expect(const char *tc, GsMemSource source, uint64_t bytes, const char *path_end)
{
	char		root[600];
	GsMemLimit	lim;
	char		detail[1024];

	checks++;
	snprintf(root, sizeof(root), "%s/%s", base, tc);
	gs_mem_cgroup_limit(root, &lim);
	snprintf(detail, sizeof(detail), "source %s bytes %llu path %s; expected %s %llu ...%s",
			 gs_mem_source_name(lim.source), (unsigned long long) lim.bytes, lim.path,
			 gs_mem_source_name(source), (unsigned long long) bytes,
			 path_end ? path_end : "");
	if (lim.source != source ||
		(source != GS_MEM_NONE && lim.bytes != bytes) ||
		(path_end && (strlen(lim.path) < strlen(path_end) ||
					  strcmp(lim.path + strlen(lim.path) - strlen(path_end), path_end) != 0)))
		fail(tc, detail);
}

static void
parsers(void)
{
	uint64_t	b = 0;
	char		p[256],
				m[256],
				r[256];

	checks++;
	if (!gs_mem_parse_limit("2147483648\n", &b) || b != 2147483648ULL)
		fail("parse", "2147483648");
	checks++;
	if (gs_mem_parse_limit("max\n", &b))
		fail("parse", "max is no limit");
	checks++;
	if (gs_mem_parse_limit("9223372036854771712\n", &b))
		fail("parse", "v1's unlimited is no limit");
	checks++;
	if (gs_mem_parse_limit("", &b) || gs_mem_parse_limit("-1", &b) ||
		gs_mem_parse_limit("12abc", &b) || gs_mem_parse_limit("0\n", &b))
		fail("parse", "garbage is no limit");
	checks++;
	if (!gs_mem_cgroup_path("12:memory:/a\n0::/b/c\n", NULL, p, sizeof(p)) ||
		strcmp(p, "/b/c") != 0)
		fail("path", "v2 line");
	checks++;
	if (!gs_mem_cgroup_path("4:cpu,memory:/x/y\n1:name=systemd:/\n", "memory", p, sizeof(p)) ||
		strcmp(p, "/x/y") != 0)
		fail("path", "v1 memory in a controller list");
	checks++;
	if (gs_mem_cgroup_path("4:memoryx:/x\n", "memory", p, sizeof(p)))
		fail("path", "memoryx is not memory");
	checks++;
	if (gs_mem_cgroup_path("4:cpu:/x\n", NULL, p, sizeof(p)))
		fail("path", "no v2 line");
	checks++;
	if (!gs_mem_cgroup_mount("1 0 0:1 /grp /sys/fs/cg\\040x rw - cgroup2 cgroup2 rw\n",
							 NULL, m, sizeof(m), r, sizeof(r)) ||
		strcmp(m, "/sys/fs/cg x") != 0 || strcmp(r, "/grp") != 0)
		fail("mount", "escaped mount point, root");
	checks++;
	if (gs_mem_cgroup_mount(MI_V1, NULL, m, sizeof(m), r, sizeof(r)))
		fail("mount", "no cgroup2 mount");
}

int
main(int argc, char **argv)
{
	if (argc != 2)
	{
		fprintf(stderr, "usage: %s fixture-dir\n", argv[0]);
		return 2;
	}
	snprintf(base, sizeof(base), "%s", argv[1]);
	parsers();

	/* v2: the group's own limit */
	put("v2", "/proc/self/cgroup", "0::/system.slice/pg.service\n");
	put("v2", "/proc/self/mountinfo", MI_V2);
	put("v2", "/sys/fs/cgroup/system.slice/pg.service/memory.max", "2147483648\n");
	put("v2", "/sys/fs/cgroup/system.slice/memory.max", "max\n");
	expect("v2", GS_MEM_CGROUP_V2, 2147483648ULL, "pg.service/memory.max");

	/* v2: "max" in the group, a smaller limit in its parent */
	put("v2parent", "/proc/self/cgroup", "0::/kubepods/pod1/ctr\n");
	put("v2parent", "/proc/self/mountinfo", MI_V2);
	put("v2parent", "/sys/fs/cgroup/kubepods/pod1/ctr/memory.max", "max\n");
	put("v2parent", "/sys/fs/cgroup/kubepods/pod1/memory.max", "1073741824\n");
	put("v2parent", "/sys/fs/cgroup/kubepods/memory.max", "4294967296\n");
	expect("v2parent", GS_MEM_CGROUP_V2, 1073741824ULL, "pod1/memory.max");

	/* v2: "max" all the way up: no limit */
	put("v2max", "/proc/self/cgroup", "0::/user.slice\n");
	put("v2max", "/proc/self/mountinfo", MI_V2);
	put("v2max", "/sys/fs/cgroup/user.slice/memory.max", "max\n");
	expect("v2max", GS_MEM_NONE, 0, NULL);

	/* v2 in a container: cgroup namespace, "0::/" and the mount is the group */
	put("v2ns", "/proc/self/cgroup", "0::/\n");
	put("v2ns", "/proc/self/mountinfo",
		"600 590 0:26 / /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw\n");
	put("v2ns", "/sys/fs/cgroup/memory.max", "536870912\n");
	expect("v2ns", GS_MEM_CGROUP_V2, 536870912ULL, "/sys/fs/cgroup/memory.max");

	/* v2 bind-mounted group: the path starts with the mount's root */
	put("v2bind", "/proc/self/cgroup", "0::/docker/abc\n");
	put("v2bind", "/proc/self/mountinfo",
		"600 590 0:26 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
	put("v2bind", "/sys/fs/cgroup/memory.max", "805306368\n");
	expect("v2bind", GS_MEM_CGROUP_V2, 805306368ULL, NULL);

	/* v1: limit_in_bytes, with hierarchical_memory_limit smaller (a parent) */
	put("v1", "/proc/self/cgroup", "4:memory:/docker/abc\n1:cpu:/\n");
	put("v1", "/proc/self/mountinfo", MI_V1);
	put("v1", "/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "3221225472\n");
	put("v1", "/sys/fs/cgroup/memory/docker/abc/memory.stat",
		"cache 0\nrss 0\nhierarchical_memory_limit 2147483648\nhierarchical_memsw_limit 9223372036854771712\n");
	expect("v1", GS_MEM_CGROUP_V1, 2147483648ULL, "memory.stat");

	/* v1: only limit_in_bytes */
	put("v1plain", "/proc/self/cgroup", "4:memory:/pg\n");
	put("v1plain", "/proc/self/mountinfo", MI_V1);
	put("v1plain", "/sys/fs/cgroup/memory/pg/memory.limit_in_bytes", "3221225472\n");
	expect("v1plain", GS_MEM_CGROUP_V1, 3221225472ULL, "memory.limit_in_bytes");

	/* v1 unlimited */
	put("v1max", "/proc/self/cgroup", "4:memory:/\n");
	put("v1max", "/proc/self/mountinfo", MI_V1);
	put("v1max", "/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
	put("v1max", "/sys/fs/cgroup/memory/memory.stat",
		"hierarchical_memory_limit 9223372036854771712\n");
	expect("v1max", GS_MEM_NONE, 0, NULL);

	/* hybrid: cgroup2 mounted without memory.max, the limit in v1 */
	put("hybrid", "/proc/self/cgroup", "4:memory:/pg\n0::/pg\n");
	put("hybrid", "/proc/self/mountinfo",
		MI_V1 "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n");
	put("hybrid", "/sys/fs/cgroup/memory/pg/memory.limit_in_bytes", "1610612736\n");
	expect("hybrid", GS_MEM_CGROUP_V1, 1610612736ULL, NULL);

	/* no /proc at all (another OS, or a sandbox) */
	put("none", "/empty", "");
	expect("none", GS_MEM_NONE, 0, NULL);

	/* the live system: whatever it says, it must not crash, and a limit is sane */
	{
		GsMemLimit	lim;

		checks++;
		gs_mem_cgroup_limit("", &lim);
		printf("this machine: %s %llu %s\n", gs_mem_source_name(lim.source),
			   (unsigned long long) lim.bytes, lim.path);
		if (lim.source != GS_MEM_NONE && (lim.bytes == 0 || lim.bytes >= GS_MEM_NO_LIMIT))
			fail("live", "limit out of range");
	}
	return check_report();
}
