package dev.memchan.admin;

/**
 * One operator write of a node's PCT entries for a network page ({@code mcctl pct}, {@code apply}).
 *
 * @param tx the transmit entry ({@code dev.memchan.layout.TxPct}), or null to leave it as it is
 * @param rx the receive entry ({@code dev.memchan.layout.RxPct}), or null to leave it as it is
 */
public record PctWrite(int node, int page, Integer tx, Long rx) {
}
