// SPDX-License-Identifier: GPL-2.0
/*
 * memchan: hardware backend for the FPGA adapter (MC_PCI_VENDOR:MC_PCI_DEVICE).
 *
 * BAR0: registers (0x000-0xfff), TX PCT (MC_TX_PCT_BASE, u32 per page),
 * RX PCT (MC_RX_PCT_BASE, u64 per page as lo/hi words). BAR2: the transmit
 * window, PAGE_COUNT * PAGE_SIZE bytes, mapped write-combining into users.
 * Receive pages are DMA-coherent host pages allocated on first receive grant;
 * their bus addresses go into RX PCT REMAP_ADDR (receive-side remapping).
 * They are freed only at remove, after the adapter is disabled, because a
 * packet that passed the PCT lookup may still be in flight.
 *
 * Interrupts: MSI-X, else MSI, else INTx, else polling (irq_mode). Polling is
 * a delayed work reading IRQ_STATUS every poll_ms; a host whose bridge gives
 * no usable interrupt (and the co-simulated board of firmware/cosim, whose
 * QEMU proxy device cannot deliver one) still gets every notification.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/iopoll.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "memchan.h"

#define MEMCHAN_BAR_REGS	0
#define MEMCHAN_BAR_WINDOW	2

static char *memchan_irq_mode = "auto";
module_param_named(irq_mode, memchan_irq_mode, charp, 0444);
MODULE_PARM_DESC(irq_mode,
		 "hardware backend: interrupt delivery: auto (MSI-X, else MSI, else INTx, else poll), msix, msi, intx or poll (IRQ_STATUS read every poll_ms)");

static unsigned int memchan_node_auto_ms = 30000;
module_param_named(node_auto_ms, memchan_node_auto_ms, uint, 0644);
MODULE_PARM_DESC(node_auto_ms,
		 "hardware backend: how long MEMCHAN_SET_NODE with MEMCHAN_NODE_AUTO waits for the link to assign the node ID (default 30000)");

static const char * const mc_hw_irq_names[] = {
	[MEMCHAN_IRQ_NONE] = "none",
	[MEMCHAN_IRQ_MSIX] = "msix",
	[MEMCHAN_IRQ_MSI] = "msi",
	[MEMCHAN_IRQ_INTX] = "intx",
	[MEMCHAN_IRQ_POLL] = "poll",
};

const char *memchan_irq_kind_name(u32 kind)
{
	return kind < ARRAY_SIZE(mc_hw_irq_names) ? mc_hw_irq_names[kind] : "none";
}

static u32 mc_hw_reg_read(struct memchan_dev *md, u32 off)
{
	return readl(md->regs + off);
}

static void mc_hw_reg_write(struct memchan_dev *md, u32 off, u32 v)
{
	writel(v, md->regs + off);
}

static u32 mc_hw_tx_pct_read(struct memchan_dev *md, u32 page)
{
	return readl(md->regs + MC_TX_PCT_BASE + page * MC_TX_PCT_ENTRY_SIZE);
}

static u64 mc_hw_rx_pct_read(struct memchan_dev *md, u32 page)
{
	void __iomem *e = md->regs + MC_RX_PCT_BASE + page * MC_RX_PCT_ENTRY_SIZE;

	return readl(e) | (u64)readl(e + 4) << 32;
}

static int mc_hw_tx_pct_write(struct memchan_dev *md, u32 page, u32 entry)
{
	void __iomem *e = md->regs + MC_TX_PCT_BASE + page * MC_TX_PCT_ENTRY_SIZE;

	writel(entry, e);
	readl(e);	/* flush the posted write before the page is mapped */
	return 0;
}

static int mc_hw_rx_pct_write(struct memchan_dev *md, u32 page, u64 entry)
{
	void __iomem *e = md->regs + MC_RX_PCT_BASE + page * MC_RX_PCT_ENTRY_SIZE;

	if (entry & MC_RX_PCT_RX_EN_MASK) {
		if (!md->rx_cpu[page]) {
			md->rx_cpu[page] = dma_alloc_coherent(&md->pdev->dev, md->page_size,
							      &md->rx_dma[page], GFP_KERNEL);
			if (!md->rx_cpu[page])
				return -ENOMEM;
		}
		entry |= MC_RX_PCT_REMAP_EN_MASK |
			 (md->rx_dma[page] & MC_RX_PCT_REMAP_ADDR_MASK);
	}
	/* the high word (address) first, then the low word enables the entry */
	writel(lower_32_bits(entry) & ~(u32)MC_RX_PCT_RX_EN_MASK, e);
	writel(upper_32_bits(entry), e + 4);
	writel(lower_32_bits(entry), e);
	readl(e);
	return 0;
}

/*
 * Close every route. Whole 32-bit stores: memset_io() may store bytes (x86: rep stosb),
 * four times the BAR traffic, and the register block takes whole words only.
 */
static void mc_hw_clear_pcts(struct memchan_dev *md)
{
	u32 p;

	for (p = 0; p < md->page_count; p++) {
		writel(0, md->regs + MC_TX_PCT_BASE + p * MC_TX_PCT_ENTRY_SIZE);
		writel(0, md->regs + MC_RX_PCT_BASE + p * MC_RX_PCT_ENTRY_SIZE);
		writel(0, md->regs + MC_RX_PCT_BASE + p * MC_RX_PCT_ENTRY_SIZE + 4);
	}
}

/*
 * NODE_ID.AUTO: the link assigns 0 or 1 once both ends announce AUTO (or the
 * peer has an ID). Wait for it, bounded; on failure put back the ID we had, so
 * a refused call changes nothing.
 */
static int mc_hw_set_node_auto(struct memchan_dev *md)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(memchan_node_auto_ms);
	u32 old = mc_hw_reg_read(md, MC_REG_NODE_ID);
	u32 v;

	mc_hw_reg_write(md, MC_REG_NODE_ID, MC_NODE_ID_AUTO_MASK);
	while (!((v = mc_hw_reg_read(md, MC_REG_NODE_ID)) & MC_NODE_ID_VALID_MASK)) {
		/* a register read per 20 ms: BAR reads are slow on some hosts */
		if (time_after(jiffies, deadline) || msleep_interruptible(20)) {
			mc_hw_reg_write(md, MC_REG_NODE_ID, old);
			if (signal_pending(current))
				return -EINTR;
			dev_info(&md->pdev->dev, "no node ID from the link within %u ms: no peer announcing one\n",
				 memchan_node_auto_ms);
			return -ETIMEDOUT;
		}
	}
	md->node_id = (v & MC_NODE_ID_ID_MASK) >> MC_NODE_ID_ID_SHIFT;
	md->node_auto = true;
	md->incarnation++;
	dev_info(&md->pdev->dev, "node ID %u assigned by the link\n", md->node_id);
	return 0;
}

static int mc_hw_set_node(struct memchan_dev *md, u32 node, u32 flags)
{
	if (flags & MEMCHAN_NODE_TAKEOVER)
		return -EINVAL;	/* takeover is a soft-fabric notion */
	if (flags & MEMCHAN_NODE_AUTO)
		return mc_hw_set_node_auto(md);
	mc_hw_reg_write(md, MC_REG_NODE_ID,
			node == MEMCHAN_NODE_NONE ? 0 : node | MC_NODE_ID_VALID_MASK);
	md->node_id = node;
	md->node_auto = false;
	if (node != MEMCHAN_NODE_NONE)
		md->incarnation++;
	return 0;
}

static int mc_hw_barrier(struct memchan_dev *md, u64 timeout_ns, u32 *outstanding)
{
	u32 v;
	int ret;

	mc_hw_reg_write(md, MC_REG_BARRIER, MC_BARRIER_START_MASK);
	ret = readl_poll_timeout(md->regs + MC_REG_BARRIER, v, v & MC_BARRIER_DONE_MASK,
				 10, div_u64(timeout_ns, NSEC_PER_USEC) + 1);
	*outstanding = mc_hw_reg_read(md, MC_REG_ACK_OUTSTANDING);
	return ret;
}

static int mc_hw_loopback(struct memchan_dev *md, u32 mode)
{
	u32 caps = md->caps;

	if ((mode == 1 && !(caps & MC_CAPS_LOOPBACK_INTERNAL_MASK)) ||
	    (mode == 2 && !(caps & MC_CAPS_LOOPBACK_EXTERNAL_MASK)))
		return -EOPNOTSUPP;
	mc_hw_reg_write(md, MC_REG_LOOPBACK, mode);
	return 0;
}

static int mc_hw_release_node(struct memchan_dev *md, u32 node, u64 incarnation)
{
	return 0;	/* the dead node's PCT is in its own adapter */
}

static unsigned long mc_hw_tx_pfn(struct memchan_dev *md, u32 page, u32 off)
{
	return (md->win_start + (u64)page * md->page_size + off) >> PAGE_SHIFT;
}

static unsigned long mc_hw_rx_pfn(struct memchan_dev *md, u32 page, u32 off)
{
	void *cpu = md->rx_cpu[page];

	if (!cpu)
		return 0;
	cpu += off;
	/* dma-direct returns linear-map memory; remapped allocators vmalloc space */
	if (is_vmalloc_addr(cpu))
		return vmalloc_to_pfn(cpu);
	return page_to_pfn(virt_to_page(cpu));
}

static pgprot_t mc_hw_tx_prot(pgprot_t prot)
{
	return pgprot_writecombine(prot);
}

static pgprot_t mc_hw_rx_prot(pgprot_t prot)
{
	return prot;
}

static pgprot_t mc_hw_ctl_prot(pgprot_t prot)
{
	return pgprot_noncached(prot);
}

/* What the interrupt handler does, also for the poll work: true if a cause was pending. */
static bool mc_hw_service(struct memchan_dev *md)
{
	u32 st = mc_hw_reg_read(md, MC_REG_IRQ_STATUS) & md->irq_mask;

	if (!st)
		return false;
	mc_hw_reg_write(md, MC_REG_IRQ_STATUS, st);	/* w1c */
	if (st & MC_IRQ_STATUS_RX_NOTIFY_MASK)
		memchan_notify_arrived(md, mc_hw_reg_read(md, MC_REG_NOTIFY_COUNT));
	if (st & MC_IRQ_STATUS_ERROR_MASK)
		dev_warn_ratelimited(&md->pdev->dev, "ERROR_COUNT now %u\n",
				     mc_hw_reg_read(md, MC_REG_ERROR_COUNT));
	return true;
}

static irqreturn_t mc_hw_irq(int irq, void *data)
{
	return mc_hw_service(data) ? IRQ_HANDLED : IRQ_NONE;
}

/* one BAR read per period while nothing is pending */
static void mc_hw_poll(struct work_struct *work)
{
	struct memchan_dev *md = container_of(to_delayed_work(work), struct memchan_dev, tick);

	mc_hw_service(md);
	schedule_delayed_work(&md->tick, max(msecs_to_jiffies(memchan_poll_ms), 1UL));
}

/* MSI-X, MSI, INTx as irq_mode allows, the first that the device and platform give; else poll */
static int mc_hw_setup_irq(struct memchan_dev *md)
{
	struct pci_dev *pdev = md->pdev;
	unsigned int flags;
	int ret;

	if (!strcmp(memchan_irq_mode, "auto"))
		flags = PCI_IRQ_MSIX | PCI_IRQ_MSI | PCI_IRQ_LEGACY;
	else if (!strcmp(memchan_irq_mode, "msix"))
		flags = PCI_IRQ_MSIX;
	else if (!strcmp(memchan_irq_mode, "msi"))
		flags = PCI_IRQ_MSI;
	else if (!strcmp(memchan_irq_mode, "intx"))
		flags = PCI_IRQ_LEGACY;
	else if (!strcmp(memchan_irq_mode, "poll"))
		flags = 0;
	else
		return -EINVAL;

	if (flags) {
		ret = pci_alloc_irq_vectors(pdev, 1, 1, flags);
		if (ret < 0 && strcmp(memchan_irq_mode, "auto")) {
			dev_err(&pdev->dev, "irq_mode=%s: no such interrupt (%d)\n",
				memchan_irq_mode, ret);
			return ret;
		}
		if (ret > 0) {
			unsigned long irqf = IRQF_ONESHOT;

			md->irq_kind = pdev->msix_enabled ? MEMCHAN_IRQ_MSIX :
				       pdev->msi_enabled ? MEMCHAN_IRQ_MSI : MEMCHAN_IRQ_INTX;
			if (md->irq_kind == MEMCHAN_IRQ_INTX)
				irqf |= IRQF_SHARED;
			/* threaded: the handler reads registers, which may be slow */
			return devm_request_threaded_irq(&pdev->dev, pci_irq_vector(pdev, 0), NULL,
							 mc_hw_irq, irqf, md->name, md);
		}
	}
	md->irq_kind = MEMCHAN_IRQ_POLL;
	INIT_DELAYED_WORK(&md->tick, mc_hw_poll);
	return 0;
}

int memchan_hw_probe(struct memchan_dev *md)
{
	struct pci_dev *pdev = md->pdev;
	struct device *dev = &pdev->dev;
	resource_size_t win_len;
	u32 id, ver;
	int ret;

	if (!(pci_resource_flags(pdev, MEMCHAN_BAR_REGS) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, MEMCHAN_BAR_REGS) < MC_BAR0_SIZE ||
	    !(pci_resource_flags(pdev, MEMCHAN_BAR_WINDOW) & IORESOURCE_MEM))
		return -ENODEV;
	ret = pcim_iomap_regions(pdev, BIT(MEMCHAN_BAR_REGS), MEMCHAN_NAME);
	if (ret)
		return ret;
	md->regs = pcim_iomap_table(pdev)[MEMCHAN_BAR_REGS];

	id = mc_hw_reg_read(md, MC_REG_ID);
	ver = mc_hw_reg_read(md, MC_REG_VERSION);
	if (id != MC_ID) {
		dev_err(dev, "ID register reads %#x, expected %#x: not a memchan adapter\n",
			id, MC_ID);
		return -ENODEV;
	}
	if ((ver & MC_VERSION_MAJOR_MASK) >> MC_VERSION_MAJOR_SHIFT != MC_VERSION_MAJOR) {
		dev_err(dev, "VERSION register reads %#x: register-map major %u, this driver supports %u\n",
			ver, (ver & MC_VERSION_MAJOR_MASK) >> MC_VERSION_MAJOR_SHIFT,
			MC_VERSION_MAJOR);
		return -ENODEV;
	}
	md->regmap_version = ver;
	md->caps = mc_hw_reg_read(md, MC_REG_CAPS);
	md->page_size = mc_hw_reg_read(md, MC_REG_PAGE_SIZE);
	md->page_count = mc_hw_reg_read(md, MC_REG_PAGE_COUNT);
	md->max_nodes = mc_hw_reg_read(md, MC_REG_MAX_NODES);
	if ((md->page_size != 4096 && md->page_size != 8192) || !md->page_count ||
	    md->page_count > MC_MAX_PAGES || md->max_nodes < 2 ||
	    md->max_nodes > MC_MAX_NODES) {
		dev_err(dev, "bad geometry: %u pages of %u bytes, %u nodes\n",
			md->page_count, md->page_size, md->max_nodes);
		return -ENODEV;
	}
	win_len = (resource_size_t)md->page_count * md->page_size;
	if (pci_resource_len(pdev, MEMCHAN_BAR_WINDOW) < win_len) {
		dev_err(dev, "BAR2 smaller than the %llu-byte window\n", (u64)win_len);
		return -ENODEV;
	}
	/* managed by pcim: released with the device */
	ret = pci_request_region(pdev, MEMCHAN_BAR_WINDOW, MEMCHAN_NAME);
	if (ret)
		return ret;
	md->win_start = pci_resource_start(pdev, MEMCHAN_BAR_WINDOW);
	ret = devm_arch_io_reserve_memtype_wc(dev, md->win_start, win_len);
	if (ret)
		return ret;
	devm_arch_phys_wc_add(dev, md->win_start, win_len);
	md->ctl_start = pci_resource_start(pdev, MEMCHAN_BAR_REGS);
	md->ctl_len = MC_BAR0_SIZE;

	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	md->rx_cpu = kvcalloc(md->page_count, sizeof(*md->rx_cpu), GFP_KERNEL);
	md->rx_dma = kvcalloc(md->page_count, sizeof(*md->rx_dma), GFP_KERNEL);
	if (!md->rx_cpu || !md->rx_dma) {
		ret = -ENOMEM;
		goto err_free;
	}
	pci_set_master(pdev);

	/* start with every route closed */
	mc_hw_reg_write(md, MC_REG_CTRL, 0);
	mc_hw_clear_pcts(md);
	id = mc_hw_reg_read(md, MC_REG_NODE_ID);
	if (id & MC_NODE_ID_VALID_MASK) {
		md->node_id = (id & MC_NODE_ID_ID_MASK) >> MC_NODE_ID_ID_SHIFT;
		md->node_auto = id & MC_NODE_ID_AUTO_MASK;
	}

	md->irq_mask = MC_IRQ_STATUS_RX_NOTIFY_MASK | MC_IRQ_STATUS_LINK_CHANGE_MASK |
		       MC_IRQ_STATUS_ERROR_MASK;
	ret = mc_hw_setup_irq(md);
	if (ret)
		goto err_free;
	mc_hw_reg_write(md, MC_REG_IRQ_STATUS, ~0U);
	mc_hw_reg_write(md, MC_REG_IRQ_MASK, md->irq_mask);
	md->notify_count = mc_hw_reg_read(md, MC_REG_NOTIFY_COUNT);
	mc_hw_reg_write(md, MC_REG_CTRL, MC_CTRL_ENABLE_MASK | MC_CTRL_RETRY_EN_MASK);
	if (md->irq_kind == MEMCHAN_IRQ_POLL)
		schedule_delayed_work(&md->tick, 1);
	return 0;

err_free:
	kvfree(md->rx_cpu);
	kvfree(md->rx_dma);
	md->rx_cpu = NULL;
	md->rx_dma = NULL;
	return ret;
}

void memchan_hw_remove(struct memchan_dev *md)
{
	u32 p;

	/* stop the adapter before its receive pages go */
	if (md->irq_kind == MEMCHAN_IRQ_POLL)
		cancel_delayed_work_sync(&md->tick);
	mc_hw_reg_write(md, MC_REG_IRQ_MASK, 0);
	mc_hw_reg_write(md, MC_REG_CTRL, 0);
	mc_hw_clear_pcts(md);
	mc_hw_reg_read(md, MC_REG_CTRL);
	pci_clear_master(md->pdev);
	for (p = 0; p < md->page_count; p++)
		if (md->rx_cpu[p])
			dma_free_coherent(&md->pdev->dev, md->page_size,
					  md->rx_cpu[p], md->rx_dma[p]);
	kvfree(md->rx_cpu);
	kvfree(md->rx_dma);
	md->rx_cpu = NULL;
	md->rx_dma = NULL;
}

const struct memchan_backend memchan_hw_backend = {
	.kind = MEMCHAN_BACKEND_HW,
	.rx_private = true,
	.reg_read = mc_hw_reg_read,
	.tx_pct_read = mc_hw_tx_pct_read,
	.rx_pct_read = mc_hw_rx_pct_read,
	.tx_pct_write = mc_hw_tx_pct_write,
	.rx_pct_write = mc_hw_rx_pct_write,
	.set_node = mc_hw_set_node,
	.ack_sweep = mc_hw_barrier,
	.notify = NULL,
	.loopback = mc_hw_loopback,
	.release_node = mc_hw_release_node,
	.tx_pfn = mc_hw_tx_pfn,
	.rx_pfn = mc_hw_rx_pfn,
	.tx_prot = mc_hw_tx_prot,
	.rx_prot = mc_hw_rx_prot,
	.ctl_prot = mc_hw_ctl_prot,
};
