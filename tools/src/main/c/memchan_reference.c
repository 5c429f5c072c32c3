// SPDX-License-Identifier: MIT
/*
 * memchan_reference: the physical limits the Java benchmarks are compared against, measured in
 * the same run on the same machine.
 *
 *   memchan_reference pingpong FILE ROUNDS BATCHES
 *       Two processes (fork) on a MAP_SHARED mapping of FILE (a /dev/shm file, like the soft fabric)
 *       exchange an 8-byte value: ping stores round r into its page, pong waits for it and stores r
 *       into its own page, ping waits for that. Prints one line per batch: "batch ONE_WAY_NS".
 *       Stores are sequentially consistent (store + full fence), the same as the Java side's
 *       putLongVolatile, so both sides pay for pushing the store out.
 *
 *   memchan_reference latency FILE ROUNDS
 *       The same ping-pong, timed per round trip (clock_gettime around each, as the Java side's
 *       System.nanoTime): one uncounted warm-up pass of ROUNDS, then ROUNDS timed ones. Prints the
 *       one-way (round trip / 2) percentiles: "p50 NS", "p99 NS", "p999 NS".
 *
 *   memchan_reference ring SIZE RING_BYTES COUNT FILE
 *       The message channel's protocol in C between two processes (fork) on a MAP_SHARED file:
 *       message i's pattern (pattern_word, the Java benchmark's MessagePattern) written in place,
 *       then the header (seq << 32 | length) with a release store; the consumer reads the header
 *       with acquire, checks every byte of the message against its pattern (exit status 1 and a
 *       message on stderr if one differs), returns credit every RING/8 bytes. No full fences: this
 *       is the cost of crossing between cores alone. Prints "bytes_per_second N".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Spin, then yield: on two cores a waiter that never yields can starve the very peer it waits for. */
static inline void idle(unsigned int *spins)
{
	if (++*spins < 1000) {
		__builtin_ia32_pause();
	} else {
		sched_yield();
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int pingpong(const char *file, long rounds, int batches)
{
	const size_t page = 4096;
	int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || ftruncate(fd, 2 * page) != 0) {
		perror(file);
		return 2;
	}
	volatile uint64_t *ping = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ping == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	volatile uint64_t *pong = ping + page / sizeof(uint64_t);
	long total = rounds * (batches + 1); /* the first batch warms up */
	pid_t child = fork();

	if (child == 0) {
		for (long r = 1; r <= total; r++) {
			while (__atomic_load_n(ping, __ATOMIC_ACQUIRE) != (uint64_t)r)
				__builtin_ia32_pause();
			__atomic_store_n(pong, (uint64_t)r, __ATOMIC_SEQ_CST);
		}
		_exit(0);
	}
	long r = 1;
	for (int b = 0; b <= batches; b++) {
		uint64_t t0 = now_ns();
		for (long i = 0; i < rounds; i++, r++) {
			__atomic_store_n(ping, (uint64_t)r, __ATOMIC_SEQ_CST);
			while (__atomic_load_n(pong, __ATOMIC_ACQUIRE) != (uint64_t)r)
				__builtin_ia32_pause();
		}
		uint64_t t1 = now_ns();
		if (b > 0)
			printf("batch %.2f\n", (double)(t1 - t0) / (2.0 * rounds));
	}
	waitpid(child, NULL, 0);
	munmap((void *)ping, 2 * page);
	close(fd);
	unlink(file);
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int latency(const char *file, long rounds)
{
	const size_t page = 4096;
	int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || ftruncate(fd, 2 * page) != 0 || rounds < 1) {
		perror(file);
		return 2;
	}
	volatile uint64_t *ping = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	uint32_t *ns = malloc((size_t)rounds * sizeof(uint32_t));
	if (ping == MAP_FAILED || ns == NULL) {
		perror("mmap");
		return 2;
	}
	volatile uint64_t *pong = ping + page / sizeof(uint64_t);
	pid_t child = fork();

	if (child == 0) {
		for (long r = 1; r <= 2 * rounds; r++) {
			while (__atomic_load_n(ping, __ATOMIC_ACQUIRE) != (uint64_t)r)
				__builtin_ia32_pause();
			__atomic_store_n(pong, (uint64_t)r, __ATOMIC_SEQ_CST);
		}
		_exit(0);
	}
	for (long r = 1; r <= 2 * rounds; r++) {
		uint64_t t0 = now_ns();
		__atomic_store_n(ping, (uint64_t)r, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(pong, __ATOMIC_ACQUIRE) != (uint64_t)r)
			__builtin_ia32_pause();
		uint64_t t1 = now_ns();
		if (r > rounds) {
			uint64_t one_way = (t1 - t0) / 2;
			ns[r - rounds - 1] = one_way > UINT32_MAX ? UINT32_MAX : (uint32_t)(one_way < 1 ? 1 : one_way);
		}
	}
	waitpid(child, NULL, 0);
	qsort(ns, (size_t)rounds, sizeof(uint32_t), cmp_u32);
	/* nearest rank: the smallest value with at least p of the samples at or below it */
	printf("p50 %u\np99 %u\np999 %u\n", ns[(rounds * 500 + 999) / 1000 - 1], ns[(rounds * 990 + 999) / 1000 - 1],
	       ns[(rounds * 999 + 999) / 1000 - 1]);
	free(ns);
	munmap((void *)ping, 2 * page);
	close(fd);
	unlink(file);
	return 0;
}

#define PAD 0xFFFFFFFFu

/* The Java benchmark's MessagePattern.word: the 8-byte word at byte i of message seq. */
static inline uint64_t pattern_word(uint64_t seq, uint64_t i)
{
	return (seq + 1) * 0x9E3779B97F4A7C15ull + i;
}

static void pattern_fill(char *p, size_t len, uint64_t seq)
{
	size_t words = len & ~(size_t)7;
	uint64_t tail;

	for (size_t i = 0; i < words; i += 8) {
		uint64_t w = pattern_word(seq, i);
		memcpy(p + i, &w, 8);
	}
	tail = pattern_word(seq, words);
	for (size_t i = words; i < len; i++, tail >>= 8)
		p[i] = (char)tail;
}

static int pattern_matches(const char *p, size_t len, uint64_t seq)
{
	size_t words = len & ~(size_t)7;
	uint64_t diff = 0, tail;

	for (size_t i = 0; i < words; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		diff |= w ^ pattern_word(seq, i);
	}
	tail = pattern_word(seq, words);
	for (size_t i = words; i < len; i++, tail >>= 8)
		diff |= (uint8_t)p[i] ^ (uint8_t)tail;
	return diff == 0;
}

static uint32_t next_seq(uint32_t s)
{
	return s + 1 == 0 ? 1 : s + 1;
}

/*
 * For the producer's waits: once it has been yielding, whether the consumer has exited with a failure
 * (it found a message that does not hold its pattern), so that the producer does not wait forever for
 * credit. A consumer that exits successfully has returned all credit first; its status is kept.
 */
static int consumer_failed(pid_t child, unsigned int spins, int *status)
{
	if (spins < 1000 || *status != -1 || waitpid(child, status, WNOHANG) != child)
		return 0;
	if (WIFEXITED(*status) && WEXITSTATUS(*status) == 0)
		return 0;
	fprintf(stderr, "C ring: the consumer failed\n");
	return 1;
}

static int ring_bench(size_t size, size_t ring, long count, const char *file)
{
	const size_t page = 4096;
	int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || ftruncate(fd, ring + page) != 0 || size > ring / 2 - 8) {
		perror(file);
		return 2;
	}
	char *base = mmap(NULL, ring + page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	volatile uint64_t *credit = (volatile uint64_t *)(base + ring);
	size_t frame = (8 + size + 7) & ~(size_t)7;
	pid_t child = fork();
	if (child == 0) { /* consumer */
		uint64_t pos = 0, published = 0;
		uint32_t seq = 1;
		unsigned int spins = 0;
		for (long got = 0; got < count;) {
			size_t idx = pos & (ring - 1);
			uint64_t h = __atomic_load_n((uint64_t *)(base + idx), __ATOMIC_ACQUIRE);
			if ((uint32_t)(h >> 32) != seq) {
				if (pos != published) {
					__atomic_store_n(credit, pos, __ATOMIC_RELEASE);
					published = pos;
				}
				idle(&spins);
				continue;
			}
			spins = 0;
			seq = next_seq(seq);
			uint32_t len = (uint32_t)h;
			if (len == PAD) {
				pos += ring - idx;
				continue;
			}
			if (!pattern_matches(base + idx + 8, len, (uint64_t)got)) {
				fprintf(stderr, "C ring: message %ld (%u bytes) does not hold its pattern\n", got, len);
				_exit(1);
			}
			pos += (8 + len + 7) & ~(uint64_t)7;
			got++;
			if (pos - published >= ring / 8) {
				__atomic_store_n(credit, pos, __ATOMIC_RELEASE);
				published = pos;
			}
		}
		__atomic_store_n(credit, pos, __ATOMIC_RELEASE);
		_exit(0);
	}
	uint64_t pos = 0, limit = ring;
	uint32_t seq = 1;
	int status = -1; /* the consumer's wait status once reaped */
	uint64_t t0 = now_ns();
	for (long i = 0; i < count; i++) {
		size_t idx = pos & (ring - 1);
		size_t to_end = ring - idx;
		uint64_t need = to_end < frame ? to_end + frame : frame;
		unsigned int spins = 0;
		while (pos + need > limit) {
			limit = __atomic_load_n(credit, __ATOMIC_ACQUIRE) + ring;
			if (pos + need > limit) {
				idle(&spins);
				if (consumer_failed(child, spins, &status))
					return 1;
			}
		}
		if (to_end < frame) {
			__atomic_store_n((uint64_t *)(base + idx), ((uint64_t)seq << 32) | PAD, __ATOMIC_RELEASE);
			seq = next_seq(seq);
			pos += to_end;
			idx = 0;
		}
		pattern_fill(base + idx + 8, size, (uint64_t)i);
		__atomic_store_n((uint64_t *)(base + idx), ((uint64_t)seq << 32) | size, __ATOMIC_RELEASE);
		seq = next_seq(seq);
		pos += frame;
	}
	unsigned int spins = 0;
	while (__atomic_load_n(credit, __ATOMIC_ACQUIRE) != pos) {
		idle(&spins);
		if (consumer_failed(child, spins, &status))
			return 1;
	}
	uint64_t t1 = now_ns();
	if (status == -1)
		waitpid(child, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "C ring: the consumer failed\n");
		return 1;
	}
	printf("bytes_per_second %.0f\n", (double)size * (double)count * 1e9 / (double)(t1 - t0));
	munmap(base, ring + page);
	close(fd);
	unlink(file);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "pingpong") == 0)
		return pingpong(argv[2], atol(argv[3]), atoi(argv[4]));
	if (argc == 4 && strcmp(argv[1], "latency") == 0)
		return latency(argv[2], atol(argv[3]));
	if (argc == 6 && strcmp(argv[1], "ring") == 0)
		return ring_bench((size_t)atol(argv[2]), (size_t)atol(argv[3]), atol(argv[4]), argv[5]);
	fprintf(stderr, "usage: %s pingpong FILE ROUNDS BATCHES | latency FILE ROUNDS | "
		"ring SIZE RING_BYTES COUNT FILE\n", argv[0]);
	return 2;
}
