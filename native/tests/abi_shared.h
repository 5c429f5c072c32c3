/* SPDX-License-Identifier: GPL-2.0 */
/*
 * abi_shared.h: the ABI tests that hold on either backend; abi_test (ivshmem)
 * and hw_test (the co-simulated adapter) run them among their own
 * (grant_without_node_enxio before the device has a node ID, errcnt last).
 */
#ifndef ABI_SHARED_H
#define ABI_SHARED_H

#include "mc_test.h"

/* one of these as a test of fixture f, named as the function */
#define SHARED_TEST(f, name) MC_TEST(f, name) { name(); }

static void api_version(void)
{
	int fd = dev_open();

	CHECK(ioctl(fd, MEMCHAN_GET_API_VERSION, 0) == MEMCHAN_API_VERSION);
	EXPECT_ERR(ioctl(fd, MEMCHAN_GET_API_VERSION, 1), EINVAL);
}

static void info_rejects_bad_argsz(void)
{
	char buf[8192] = { 0 };
	struct memchan_info *in = (void *)buf;
	int fd = dev_open();

	in->argsz = sizeof(*in) - 8;
	EXPECT_ERR(ioctl(fd, MEMCHAN_INFO, in), EINVAL);
	in->argsz = 0;
	EXPECT_ERR(ioctl(fd, MEMCHAN_INFO, in), EINVAL);
	in->argsz = 4097;
	EXPECT_ERR(ioctl(fd, MEMCHAN_INFO, in), EINVAL);
	in->argsz = sizeof(*in) + 64;	/* larger, zero tail: accepted */
	EXPECT_OK(ioctl(fd, MEMCHAN_INFO, in));
	CHECK(in->argsz == sizeof(*in));
	in->argsz = sizeof(*in) + 64;
	buf[sizeof(*in) + 3] = 1;	/* non-zero byte the kernel does not know */
	EXPECT_ERR(ioctl(fd, MEMCHAN_INFO, in), E2BIG);
	buf[sizeof(*in) + 3] = 0;
	in->argsz = sizeof(*in);
	in->flags = 1;
	EXPECT_ERR(ioctl(fd, MEMCHAN_INFO, in), EINVAL);
	EXPECT_ERR(ioctl(fd, MEMCHAN_INFO, NULL), EFAULT);
	EXPECT_ERR(ioctl(fd, MEMCHAN_INFO, (void *)16), EFAULT);
}

static void unknown_ioctl_enotty(void)
{
	uint64_t buf[64] = { sizeof(buf) };
	int fd = dev_open();

	EXPECT_ERR(ioctl(fd, _IO(MEMCHAN_IOC_MAGIC, 0x7f), buf), ENOTTY);
	EXPECT_ERR(ioctl(fd, _IOWR('x', 1, uint64_t), buf), ENOTTY);
}

static void grant_without_node_enxio(void)
{
	int fd = dev_open();

	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, 10, 1, tx_to(1), 0, NULL), ENXIO);
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_RX, 10, 1, 0, 0, NULL), ENXIO);
	/* no node ID: nothing to serve from, no counters */
	EXPECT_ERR(ioctl(fd, MEMCHAN_REMOTE, &(struct memchan_remote){
		.argsz = sizeof(struct memchan_remote), .addr = 8 }), ENXIO);
	EXPECT_ERR(ioctl(fd, MEMCHAN_PAGE_COUNTERS, &(struct memchan_page_counters){
		.argsz = sizeof(struct memchan_page_counters), .page = 1 }), ENXIO);
}

static void errcnt(void)
{
	int fd = dev_open();
	struct memchan_errcnt e = { .argsz = sizeof(e) };

	EXPECT_OK(ioctl(fd, MEMCHAN_ERRCNT, &e));
	CHECK(e.count == 0 && e.changed == 0);
	e = (struct memchan_errcnt){ .argsz = sizeof(e), .flags = MEMCHAN_ERRCNT_CHECK, .since = 0 };
	EXPECT_OK(ioctl(fd, MEMCHAN_ERRCNT, &e));
	CHECK(e.changed == 0);
	e = (struct memchan_errcnt){ .argsz = sizeof(e), .flags = MEMCHAN_ERRCNT_CHECK, .since = 5 };
	EXPECT_OK(ioctl(fd, MEMCHAN_ERRCNT, &e));
	CHECK(e.changed == 1);
	e = (struct memchan_errcnt){ .argsz = sizeof(e), .since = 5 };
	EXPECT_ERR(ioctl(fd, MEMCHAN_ERRCNT, &e), EINVAL);
	e = (struct memchan_errcnt){ .argsz = sizeof(e), .flags = 2 };
	EXPECT_ERR(ioctl(fd, MEMCHAN_ERRCNT, &e), EINVAL);
}

#endif
