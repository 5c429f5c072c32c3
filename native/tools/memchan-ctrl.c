// SPDX-License-Identifier: GPL-2.0
/*
 * memchan-ctrl: the hardware adapter's CTRL register through the control node
 * (BAR0, root), for the guest tests of the Memory Channel error rule
 * (board_java.sh): retry=0 makes a receiver discard everything after a bad
 * frame (the sender keeps no replay), err-reset leaves that state, retry=1
 * turns link retry back on. Prints CTRL as read back after the write.
 *
 *   MEMCHAN_DEV=/dev/memchan1 memchan-ctrl retry=0|retry=1|err-reset
 */
#define _GNU_SOURCE
#include "memchan_dev.h"

int main(int argc, char **argv)
{
	volatile uint32_t *regs;
	uint32_t v;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: [MEMCHAN_DEV=/dev/memchanN] memchan-ctrl retry=0|retry=1|err-reset\n");
		return 2;
	}
	fd = open(ctl_path, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "open %s: %s\n", ctl_path, strerror(errno));
		return 1;
	}
	regs = mmap(NULL, MC_BAR0_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (regs == MAP_FAILED) {
		fprintf(stderr, "mmap %s: %s\n", ctl_path, strerror(errno));
		return 1;
	}
	v = regs[MC_REG_CTRL / 4];
	if (!strcmp(argv[1], "retry=0"))
		v &= ~MC_CTRL_RETRY_EN_MASK;
	else if (!strcmp(argv[1], "retry=1"))
		v |= MC_CTRL_RETRY_EN_MASK;
	else if (!strcmp(argv[1], "err-reset"))
		v |= MC_CTRL_ERR_RESET_MASK;	/* self-clearing */
	else {
		fprintf(stderr, "memchan-ctrl: retry=0, retry=1 or err-reset, not '%s'\n", argv[1]);
		return 2;
	}
	regs[MC_REG_CTRL / 4] = v;
	printf("ctrl=%#x\n", regs[MC_REG_CTRL / 4]);
	return 0;
}
