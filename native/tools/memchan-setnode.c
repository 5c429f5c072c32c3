// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * memchan-setnode: set (or with "none", release) the node ID of a memchan
 * device, as root, until mcctl does it; with "auto" the link assigns it
 * (hardware, two adapters cabled back to back: waits for the peer). Prints
 * the resulting node ID.
 *
 *   memchan-setnode /dev/memchan0 3|none|auto [--takeover]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../include/uapi/linux/memchan.h"

int main(int argc, char **argv)
{
	struct memchan_node n = { .argsz = sizeof(n) };
	struct memchan_info in = { .argsz = sizeof(in) };
	int fd;

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "--takeover"))) {
		fprintf(stderr, "usage: memchan-setnode DEVICE NODE|none|auto [--takeover]\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	if (!strcmp(argv[2], "auto")) {
		n.node_id = MEMCHAN_NODE_NONE;
		n.flags = MEMCHAN_NODE_AUTO;
	} else {
		n.node_id = strcmp(argv[2], "none") ? (unsigned int)strtoul(argv[2], NULL, 0) : MEMCHAN_NODE_NONE;
	}
	n.flags |= argc == 4 ? MEMCHAN_NODE_TAKEOVER : 0;
	if (ioctl(fd, MEMCHAN_SET_NODE, &n) || ioctl(fd, MEMCHAN_INFO, &in)) {
		fprintf(stderr, "%s: node %s: %s\n", argv[1], argv[2], strerror(errno));
		return 1;
	}
	if (in.node_id == MEMCHAN_NODE_NONE)
		printf("%s: no node ID\n", argv[1]);
	else
		printf("%s: node %u%s (incarnation %llu)\n", argv[1], in.node_id,
		       in.flags & MEMCHAN_INFO_NODE_AUTO ? ", assigned by the link" : "",
		       (unsigned long long)in.incarnation);
	return 0;
}
