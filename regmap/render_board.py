"""firmware/boards/*/tcl/memchan_ids.tcl: the register map's facts a board's Vivado scripts
configure the PCIe bridge with (PCI IDs, BAR sizes, the transmit window's geometry)."""
from .model import HEADER_NOTE


def ids_tcl(rm):
    meta, board = rm["meta"], rm["board"]
    window = board["pages"] * board["page_size"]
    rows = [
        ("memchan_pci_vendor", f"{meta['pci_vendor']:04X}", "the bridge's vendor ID (hex digits, as the IP takes them)"),
        ("memchan_pci_device", f"{meta['pci_device']:04X}", "the bridge's device ID"),
        ("memchan_bar0_bytes", meta["bar0_size"], "BAR0: registers and both PCTs"),
        ("memchan_bar2_bytes", window, "BAR2: the transmit window, PAGES * PAGE_SIZE"),
        ("memchan_pages", board["pages"], "memchan_top PAGES"),
        ("memchan_page_size", board["page_size"], "memchan_top PAGE_SIZE"),
        ("memchan_version", f"{meta['version_major']}.{meta['version_minor']}", "register map version"),
    ]
    out = [f"# {HEADER_NOTE}", "# The register map's facts the board's IP configuration takes (tcl/ip_xdma.tcl)."]
    width = max(len(name) for name, _, _ in rows)
    for name, value, comment in rows:
        out.append(f"set {name:<{width}} {value}  ;# {comment}")
    return "\n".join(out) + "\n"
