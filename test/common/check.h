/*
 * check.h
 *	  Counting and reporting checks in the standalone tests (test/sort/cpu/,
 *	  test/tree/cpu/).
 *
 * A case counts itself (checks++) and calls fail() once for each thing it
 * finds wrong; main ends with check_report(), whose "N passed, M failed"
 * line and exit status test/run-all reads.  Also here: the tests' random
 * numbers (xorshift64: the same sequence on every machine, so that a
 * failure reproduces; each test seeds its own) and in_child(), for a case
 * whose effects last for the process's life.
 *
 * Header only, every definition static: each test is one translation unit
 * that includes this once.  Include it after the #undefs of port.h's
 * printf family, so that it prints with the C library's.
 */
#ifndef GS_TEST_CHECK_H
#define GS_TEST_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int	checks = 0;
static int	failures = 0;
static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static inline void
fail(const char *what, const char *detail)
{
	printf("FAILED: %s: %s\n", what, detail);
	failures++;
}

static inline void
rnd_seed(uint64_t seed)
{
	rnd_state = seed;
}

static inline uint64_t
rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/*
 * Runs fn in a child process (one check), so that what it leaves behind in
 * the process, such as a failed CUDA start that a backend remembers for its
 * life, does not reach the next case.  fn returns its number of failures;
 * those are printed by the child, and counted here as this one failure.
 */
static inline void
in_child(const char *what, int (*fn) (void))
{
	pid_t		pid;
	int			status;

	checks++;
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		exit(fn() == 0 ? 0 : 1);
	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail(what, "failed in the child process");
}

/* the last line of a test's output, and its exit status */
static inline int
check_report(void)
{
	printf("%d passed, %d failed\n", checks > failures ? checks - failures : 0, failures);
	return failures ? 1 : 0;
}

#endif							/* GS_TEST_CHECK_H */
