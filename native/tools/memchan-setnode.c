// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * memchan-setnode: set (or with "none", release) the node ID of a memchan
 * device, as root, until mcctl does it. Prints the resulting node ID.
 *
 *   memchan-setnode /dev/memchan0 3 [--takeover]
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
		fprintf(stderr, "usage: memchan-setnode DEVICE NODE|none [--takeover]\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	n.node_id = strcmp(argv[2], "none") ? (unsigned int)strtoul(argv[2], NULL, 0) : MEMCHAN_NODE_NONE;
	n.flags = argc == 4 ? MEMCHAN_NODE_TAKEOVER : 0;
	if (ioctl(fd, MEMCHAN_SET_NODE, &n) || ioctl(fd, MEMCHAN_INFO, &in)) {
		fprintf(stderr, "%s: node %s: %s\n", argv[1], argv[2], strerror(errno));
		return 1;
	}
	if (in.node_id == MEMCHAN_NODE_NONE)
		printf("%s: no node ID\n", argv[1]);
	else
		printf("%s: node %u (incarnation %llu)\n", argv[1], in.node_id,
		       (unsigned long long)in.incarnation);
	return 0;
}
