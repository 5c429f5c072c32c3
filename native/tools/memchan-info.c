// SPDX-License-Identifier: GPL-2.0
/*
 * memchan-info: the adapter's state as shell-readable lines (NAME=VALUE), for
 * the guest scripts (guest_lib.sh's field, board-pair's flip counts): node ID,
 * loopback, link status, counters; on the hardware backend NODES_UP and the
 * non-zero MCAST_GROUP registers ("group:mask ...").
 *
 *   MEMCHAN_DEV=/dev/memchan1 memchan-info
 */
#define _GNU_SOURCE
#include "memchan_dev.h"

int main(int argc, char **argv)
{
	const char *sep = "";
	struct memchan_info in;
	uint32_t g;
	int fd;

	if (argc != 1) {
		fprintf(stderr, "memchan-info takes no arguments (the device: MEMCHAN_DEV), not '%s'\n",
			argv[1]);
		return 2;
	}
	fd = dev_open();
	in = info(fd);
	printf("node_id=%u\nloopback=%u\nlink_status=%#x\npeer_seen=%u\nerror_count=%u\n"
	       "crc_errors=%u\nlink_retries=%u\nrx_packets=%u\ntx_packets=%u\n",
	       in.node_id, in.loopback, in.link_status,
	       !!(in.link_status & MC_LINK_STATUS_PEER_SEEN_MASK), in.error_count,
	       in.crc_errors, in.link_retries, in.rx_packets, in.tx_packets);
	if (in.backend == MEMCHAN_BACKEND_HW) {
		printf("nodes_up=%#x\nmcast_groups=\"", reg(fd, MC_REG_NODES_UP));
		for (g = 0; g < MC_MULTICAST_GROUPS; g++)
			if (mcast_reg(fd, g)) {
				printf("%s%u:%#x", sep, g, mcast_reg(fd, g));
				sep = " ";
			}
		printf("\"\n");
	}
	return 0;
}
