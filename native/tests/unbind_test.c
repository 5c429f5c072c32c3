// SPDX-License-Identifier: GPL-2.0
/*
 * unbind_test: device removal with live mappings (boots abi and board-loop,
 * either backend): SIGBUS, ENODEV, no oops; the module is then removable.
 * Needs root; the device is gone afterwards.
 *
 *   unbind_test
 *
 * Environment: MEMCHAN_DEV (default /dev/memchan0).
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdbool.h>
#include <sys/syscall.h>

#include "mc_test.h"

MC_FIXTURE(unbind)

/*
 * ivshmem: the store is in the shared page at once (LOCAL_COPY); hardware: it comes back through
 * the adapter's internal loopback as a DMA write into the receive area (mapped at mmap time:
 * dma_mmap_coherent), and the area is freed at removal after every mapping was zapped.
 */
MC_TEST(unbind, with_live_mappings)
{
	int fd = dev_open(), sfd;
	volatile char *tx, *rx;
	char link[256], bdf[64], *slash;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct memchan_info in = { .argsz = sizeof(in) };
	struct memchan_loopback l = { .argsz = sizeof(l), .mode = MC_LOOPBACK_MODE_INTERNAL };
	bool hw = info(fd).backend == MEMCHAN_BACKEND_HW;
	double t0;
	ssize_t n;

	if (info(fd).node_id == MEMCHAN_NODE_NONE)
		EXPECT_OK(set_node(fd, 0, 0));
	if (hw)
		EXPECT_OK(ioctl(fd, MEMCHAN_LOOPBACK, &l));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, 250, 1,
			tx_to(0) | (hw ? 0 : MC_TX_PCT_LOCAL_COPY_MASK), 0, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 250, 1, 0, MEMCHAN_RX_IRQ, NULL));
	tx = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 250 * PAGE);
	rx = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, MEMCHAN_MMAP_RX_BASE + 250 * PAGE);
	CHECK(tx != MAP_FAILED && rx != MAP_FAILED);
	/* a whole word: the adapter's window takes 32- and 64-bit stores */
	*(volatile uint64_t *)tx = 42;
	for (t0 = now_s(); *(volatile uint64_t *)rx != 42 && now_s() - t0 < 60;)
		usleep(1000);
	CHECK(*(volatile uint64_t *)rx == 42);
	/* the module is pinned while a file is open */
	EXPECT_ERR(syscall(SYS_delete_module, "memchan", O_NONBLOCK), EWOULDBLOCK);

	snprintf(link, sizeof(link), "%s/device", sysfs);
	n = readlink(link, bdf, sizeof(bdf) - 1);
	CHECK(n > 0);
	bdf[n] = 0;
	slash = strrchr(bdf, '/');
	sfd = open("/sys/bus/pci/drivers/memchan/unbind", O_WRONLY);
	CHECK(sfd >= 0);
	CHECK(write(sfd, slash + 1, strlen(slash + 1)) == (ssize_t)strlen(slash + 1));
	close(sfd);

	CHECK(touch(tx, 1) == SIGBUS);
	CHECK(touch(rx, 0) == SIGBUS);
	EXPECT_ERR(ioctl(fd, MEMCHAN_INFO, &in), ENODEV);
	CHECK(poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLERR | POLLHUP)));
	CHECK(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 250 * PAGE) == MAP_FAILED &&
	      errno == ENODEV);
	CHECK(access(dev_path, F_OK) != 0);
	munmap((void *)tx, PAGE);
	close(fd);
	CHECK(touch(rx, 0) == SIGBUS);	/* still mapped, file closed: still SIGBUS */
	munmap((void *)rx, PAGE);
	EXPECT_OK(syscall(SYS_delete_module, "memchan", O_NONBLOCK));
}

MC_TEST_MAIN
