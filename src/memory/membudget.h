/*-------------------------------------------------------------------------
 *
 * membudget.h
 *	  The memory a process may use: its cgroup's limit (v2 or v1), read from
 *	  /proc and the cgroup file systems.
 *
 * Plain C, no PostgreSQL: test/sort/cpu/membudget.sh runs it on fixture
 * directories.  Every function that reads files takes the root directory
 * that "/proc" and the cgroup mount points are relative to ("" on a live
 * system), and the parsers take file contents, so the tests need no
 * cgroups of their own.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_MEMBUDGET_H
#define GPUSORT_MEMBUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* where a limit came from */
typedef enum GsMemSource
{
	GS_MEM_NONE,				/* no limit found */
	GS_MEM_CGROUP_V2,
	GS_MEM_CGROUP_V1
} GsMemSource;

typedef struct GsMemLimit
{
	GsMemSource source;
	uint64_t	bytes;			/* the limit, when source != GS_MEM_NONE */
	char		path[512];		/* the file that set it */
} GsMemLimit;

/*
 * Limits at or above this are "no limit": cgroup v1 writes 2^63 rounded
 * down to a page for an unlimited group, and nobody limits a server to
 * exabytes.
 */
#define GS_MEM_NO_LIMIT		((uint64_t) 1 << 60)

/*
 * Parses a limit file's contents ("max", or a byte count, with or without
 * a trailing newline).  Returns true and sets *bytes for a real limit;
 * false for "max", an absurdly large value or anything unparsable.
 */
extern bool gs_mem_parse_limit(const char *text, uint64_t *bytes);

/*
 * The cgroup path of a controller in /proc/self/cgroup's contents: the
 * "0::" line for v2 (controller NULL), else the line whose controller list
 * holds controller.  False when there is none.
 */
extern bool gs_mem_cgroup_path(const char *proc_cgroup, const char *controller,
							   char *path, size_t len);

/*
 * The mount point and mount root of a cgroup file system in
 * /proc/self/mountinfo's contents: fstype "cgroup2", or "cgroup" with
 * controller among its super options.  False when it is not mounted.
 */
extern bool gs_mem_cgroup_mount(const char *mountinfo, const char *controller,
								char *mountpoint, size_t mlen,
								char *mountroot, size_t rlen);

/*
 * The memory limit of the calling process's cgroup as seen under root
 * (v2: the smallest memory.max of its group and the ancestors below the
 * mount; v1: memory.stat's hierarchical_memory_limit, else
 * memory.limit_in_bytes).  Sets out->source to GS_MEM_NONE when there is
 * none.
 */
extern void gs_mem_cgroup_limit(const char *root, GsMemLimit *out);

/* the source's name, for gpusort_memory() */
extern const char *gs_mem_source_name(GsMemSource source);

#endif							/* GPUSORT_MEMBUDGET_H */
