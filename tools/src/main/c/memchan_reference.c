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
 *   memchan_reference memcpy SIZE RING_BYTES MILLIS
 *       memcpy of SIZE-byte blocks from a source buffer into consecutive slots of a RING_BYTES ring
 *       (the work a channel sender does, without the protocol). Prints "bytes_per_second N".
 *
 *   memchan_reference ring SIZE RING_BYTES COUNT FILE
 *       The message channel's protocol in C between two processes (fork) on a MAP_SHARED file:
 *       payload, then header (seq << 32 | length) with a release store; the consumer reads the
 *       header with acquire, touches the first and last word, returns credit every RING/8 bytes.
 *       No full fences: this is the cost of crossing between cores alone. Prints
 *       "bytes_per_second N".
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

static int memcpy_bench(size_t size, size_t ring, long millis)
{
	char *src = aligned_alloc(64, size < 64 ? 64 : (size + 63) / 64 * 64);
	char *dst = aligned_alloc(4096, ring);

	if (!src || !dst || size > ring)
		return 2;
	memset(src, 0x5a, size);
	memset(dst, 0, ring);
	uint64_t bytes = 0;
	size_t pos = 0;
	uint64_t t0 = now_ns();
	uint64_t deadline = t0 + (uint64_t)millis * 1000000ull;
	uint64_t t1;

	do {
		for (int i = 0; i < 256; i++) {
			if (pos + size > ring)
				pos = 0;
			memcpy(dst + pos, src, size);
			__asm__ volatile("" : : "r"(dst) : "memory");
			pos += (size + 8 + 7) & ~(size_t)7; /* the channel's frame stride */
			bytes += size;
		}
		t1 = now_ns();
	} while (t1 < deadline);
	printf("bytes_per_second %.0f\n", (double)bytes * 1e9 / (double)(t1 - t0));
	free(src);
	free(dst);
	return 0;
}

#define PAD 0xFFFFFFFFu

static uint32_t next_seq(uint32_t s)
{
	return s + 1 == 0 ? 1 : s + 1;
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
	char *msg = aligned_alloc(64, size < 64 ? 64 : (size + 63) / 64 * 64);

	memset(msg, 0x3c, size);
	pid_t child = fork();
	if (child == 0) { /* consumer */
		uint64_t pos = 0, published = 0, sum = 0;
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
			if (len >= 8)
				sum += *(volatile uint64_t *)(base + idx + 8) +
				       *(volatile uint64_t *)(base + idx + 8 + ((len - 8) & ~7u));
			pos += (8 + len + 7) & ~(uint64_t)7;
			got++;
			if (pos - published >= ring / 8) {
				__atomic_store_n(credit, pos, __ATOMIC_RELEASE);
				published = pos;
			}
		}
		__atomic_store_n(credit, pos, __ATOMIC_RELEASE);
		_exit(sum == 42); /* keeps the reads; practically always 0 */
	}
	uint64_t pos = 0, limit = ring;
	uint32_t seq = 1;
	uint64_t t0 = now_ns();
	for (long i = 0; i < count; i++) {
		size_t idx = pos & (ring - 1);
		size_t to_end = ring - idx;
		uint64_t need = to_end < frame ? to_end + frame : frame;
		unsigned int spins = 0;
		while (pos + need > limit) {
			limit = __atomic_load_n(credit, __ATOMIC_ACQUIRE) + ring;
			if (pos + need > limit)
				idle(&spins);
		}
		if (to_end < frame) {
			__atomic_store_n((uint64_t *)(base + idx), ((uint64_t)seq << 32) | PAD, __ATOMIC_RELEASE);
			seq = next_seq(seq);
			pos += to_end;
			idx = 0;
		}
		memcpy(base + idx + 8, msg, size);
		__atomic_store_n((uint64_t *)(base + idx), ((uint64_t)seq << 32) | size, __ATOMIC_RELEASE);
		seq = next_seq(seq);
		pos += frame;
	}
	unsigned int spins = 0;
	while (__atomic_load_n(credit, __ATOMIC_ACQUIRE) != pos)
		idle(&spins);
	uint64_t t1 = now_ns();
	waitpid(child, NULL, 0);
	printf("bytes_per_second %.0f\n", (double)size * (double)count * 1e9 / (double)(t1 - t0));
	munmap(base, ring + page);
	close(fd);
	unlink(file);
	free(msg);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "pingpong") == 0)
		return pingpong(argv[2], atol(argv[3]), atoi(argv[4]));
	if (argc == 5 && strcmp(argv[1], "memcpy") == 0)
		return memcpy_bench((size_t)atol(argv[2]), (size_t)atol(argv[3]), atol(argv[4]));
	if (argc == 6 && strcmp(argv[1], "ring") == 0)
		return ring_bench((size_t)atol(argv[2]), (size_t)atol(argv[3]), atol(argv[4]), argv[5]);
	fprintf(stderr, "usage: %s pingpong FILE ROUNDS BATCHES | memcpy SIZE RING_BYTES MILLIS | "
		"ring SIZE RING_BYTES COUNT FILE\n", argv[0]);
	return 2;
}
