/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mc_test.h: the harness of the test programs of native/tests. The kernel's
 * kselftest harness (tools/testing/selftests/kselftest_harness.h of Debian's
 * linux-source-6.1, copied into native/build/kselftest by the Makefile) runs
 * each test in its own process, in the order of definition, and prints TAP;
 * MC_TEST_MAIN adds -l (list the tests) and -t NAME (run only that one);
 * memchan_dev.h gives the device and the checks; here is what only the tests
 * use.
 */
#ifndef MC_TEST_H
#define MC_TEST_H

#include <getopt.h>
#include <setjmp.h>
#include <signal.h>

#include "../tools/memchan_dev.h"
#include "kselftest_harness.h"

/*
 * MC_FIXTURE(F) names a program's tests (TAP: "ok 1 F.name"), MC_TEST(F, name) { ... } defines
 * one. The fixture holds nothing (each test opens what it uses); it is there for the timeout,
 * which TEST() fixes at the harness's 30 s: under QEMU's TCG the ioctl fuzz and the co-simulated
 * adapter's tests take longer.
 */
#define MC_TEST_TIMEOUT	120

#define MC_FIXTURE(f)							\
	FIXTURE(f) {};							\
	FIXTURE_SETUP(f) {}						\
	FIXTURE_TEARDOWN(f) {}

#define MC_TEST(f, name) TEST_F_TIMEOUT(f, name, MC_TEST_TIMEOUT)

/*
 * main: 6.1's test_harness_run() takes no arguments, so the selection is made here, on its list
 * of tests (the fixtures' tests chained by next, in order): -t NAME keeps the tests of that name
 * (board_hub.sh runs each hub test alone between steps of its own, board-pair's guests one side
 * of remote_pair_test each; a name that matches none is an error, not an empty run), -l prints
 * every test as FIXTURE.NAME.
 */
#define MC_TEST_MAIN							\
	int main(int argc, char **argv)					\
	{								\
		return mc_test_main(argc, argv);			\
	}

static inline int mc_test_main(int argc, char **argv)
{
	struct __fixture_metadata *f;
	struct __test_metadata *t, *next, *last;
	const char *only = NULL;
	int c, kept = 0;

	while ((c = getopt(argc, argv, "lt:")) != -1) {
		switch (c) {
		case 'l':
			for (f = __fixture_list; f; f = f->next)
				for (t = f->tests; t; t = t->next)
					printf("%s.%s\n", f->name, t->name);
			return 0;
		case 't':
			only = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-l | -t TEST]\n", argv[0]);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "usage: %s [-l | -t TEST]\n", argv[0]);
		return 2;
	}
	for (f = __fixture_list; only && f; f = f->next) {
		last = NULL;
		for (t = f->tests, f->tests = NULL; t; t = next) {
			next = t->next;
			if (strcmp(t->name, only))
				continue;
			t->next = NULL;
			if (last)
				last->next = t;
			else
				f->tests = t;
			t->prev = last;
			last = t;
			kept++;
		}
		if (f->tests)
			f->tests->prev = last;	/* the harness's lists: only the head's prev is circular */
	}
	if (only && !kept) {
		fprintf(stderr, "%s: no test %s (-l lists them)\n", argv[0], only);
		return 2;
	}
	return test_harness_run(argc, argv);
}

static inline int read_sysfs(const char *attr, char *buf, size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", sysfs, attr);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

static sigjmp_buf fault_jmp;
static volatile int fault_sig;

static inline void on_fault(int sig)
{
	fault_sig = sig;
	siglongjmp(fault_jmp, 1);
}

/* touch one byte; returns the signal it raised, 0 if none */
static inline int touch(volatile char *p, int write)
{
	struct sigaction sa = { .sa_handler = on_fault };

	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	fault_sig = 0;
	if (!sigsetjmp(fault_jmp, 1)) {
		if (write)
			*p = 1;
		else
			(void)*p;
	}
	return fault_sig;
}

#endif
