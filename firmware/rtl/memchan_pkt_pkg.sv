// memchan link packet format (see docs/firmware.md, "Packet format").
// Every frame on the link stream is a sequence of 64-bit words:
//   word 0       header (layout below)
//   words 1..N   payload, 8-byte aligned memory image (DATA frames only)
//   last word    CRC-32 trailer in bits 31:0 (bits 63:32 zero), TLAST set
`default_nettype none

package memchan_pkt_pkg;


  // Header fields (bit positions)
  localparam int unsigned H_TP_LSB    = 0;   // 4 bits: frame type
  localparam int unsigned H_CMD_LSB   = 4;   // 4 bits: remote command / control flags
  localparam int unsigned H_DNID_LSB  = 8;   // 8 bits: destination node or multicast group
  localparam int unsigned H_SID_LSB   = 16;  // 8 bits: source node
  localparam int unsigned H_SEQ_LSB   = 24;  // 8 bits: link sequence number (sequenced frames)
  localparam int unsigned H_LEN_LSB   = 32;  // 6 bits: payload 32-bit words minus one
  localparam int unsigned H_ADDR_LSB  = 38;  // 26 bits: network address / 4 (ACK: count)

  // Frame types
  localparam logic [3:0] TP_DATA   = 4'h1;  // sequenced: memory write
  localparam logic [3:0] TP_ACK    = 4'h2;  // sequenced: acknowledgement reply (count in ADDR)
  localparam logic [3:0] TP_ACKREQ = 4'h3;  // sequenced: barrier acknowledge request, no payload
  // Remote read and atomics (docs/firmware.md "Remote read and atomics"): point-to-point to
  // DNID, same LEN/ADDR as the store that launched them; responses go back to the request's
  // SID at the same network address.
  localparam logic [3:0] TP_RDREQ  = 4'h4;  // sequenced: read request, no payload (LEN = range)
  localparam logic [3:0] TP_RDRESP = 4'h5;  // sequenced: read response, payload = the range
  localparam logic [3:0] TP_ATREQ  = 4'h6;  // sequenced: atomic request, payload = operands
  localparam logic [3:0] TP_ATRESP = 4'h7;  // sequenced: atomic response, payload = old word
  localparam logic [3:0] TP_CTRL   = 4'h8;  // control: heartbeat, link state, node-ID autoconf
  localparam logic [3:0] TP_LACK   = 4'h9;  // control: link acknowledge, cumulative up to SEQ
  localparam logic [3:0] TP_LNAK   = 4'hA;  // control: link negative ack, resend from SEQ
  localparam logic [3:0] TP_SYNC   = 4'hB;  // control: global clock sync (docs/firmware.md)

  // CMD bits of sequenced frames
  localparam int unsigned C_ACK_REQ = 4;     // bit 4: request acknowledgement
  localparam int unsigned C_DKIND   = 5;     // bits 6:5: destination kind (tx_pct DEST_KIND)
  localparam int unsigned C_EPOCH   = 7;     // bit 7: sender epoch (toggles at ERR_RESET)
  // Requests and responses are point-to-point and never request acknowledgement, so bits
  // 6:5 (destination kind) carry the atomic operation of a request and bit 5 the error
  // status of a response (an error response has no payload).
  localparam int unsigned C_AOP      = 5;    // bits 6:5 of TP_ATREQ: A_FADD, A_SWAP, A_CAS
  localparam int unsigned C_RESP_ERR = 5;    // TP_RDRESP / TP_ATRESP: refused or failed
  localparam logic [1:0] A_FADD = 2'd0;
  localparam logic [1:0] A_SWAP = 2'd1;
  localparam logic [1:0] A_CAS  = 2'd2;
  // In the receive FIFO's copy of a DATA header, bit 7 (the epoch, consumed by the link
  // receiver) instead marks a packet that is not for this node but requests an
  // acknowledgement: acknowledge it, deliver nothing.
  localparam int unsigned C_ACK_ONLY = 7;
  // Virtual hub (two-node direct mode, see docs/firmware.md "Ordering"): DNID bit 7 of a
  // DATA frame from node 1 asks node 0 to echo it back (it is node 1's local copy; DNID
  // values are below 32, so the bit is free). In the local-copy FIFO, SEQ bit 0 (the
  // sequence is consumed by the link) marks a frame that came from the link through the
  // hub's merge, so that the receive path treats it like a frame of the receive FIFO.
  localparam int unsigned H_ECHO      = H_DNID_LSB + 7;
  localparam int unsigned Q_FROM_LINK = H_SEQ_LSB;

  // CMD bits of CTRL frames, plus the serial number in bits 63:32
  localparam int unsigned C_ID_VALID  = 4;   // sender's node ID valid (in SID)
  localparam int unsigned C_ID_AUTO   = 5;   // sender autoconfigures its node ID
  localparam int unsigned C_PEER_SEEN = 6;   // sender currently hears our heartbeats
  // Hub (memchan_hub): its heartbeats carry C_HUB, SID = HUB_SID and, in DNID, the node ID
  // of the port they leave by (the adapter on that port takes it with NODE_ID.AUTO)
  localparam int unsigned C_HUB       = 7;   // sender is a hub
  localparam logic [7:0]  HUB_SID     = 8'hFF;
  // Heartbeats on a hub carry, instead of the serial number in bits 63:32, from the hub the
  // nodes whose ports are up (bit n: node n; port supervision), and from an adapter that
  // knows it is on a hub its multicast groups in bits 47:32 (bit g: member of group g),
  // marked by H_HB_GROUPS (SEQ bit 0: control frames carry no sequence number)
  localparam int unsigned H_HB_GROUPS = H_SEQ_LSB;
  // A heartbeat's SEQ bit 1: the sender's link discards (its transmitter's retry ran out or
  // its receiver saw an error without retry), so no echo or response comes back from it; held
  // after its ERR_RESET until its echo FIFO is empty and the peer has said, by SEQ bit 2 of
  // its own heartbeats, that it heard it (docs/firmware.md "Ordering in two-node direct mode")
  localparam int unsigned H_HB_DISC      = H_SEQ_LSB + 1;
  localparam int unsigned H_HB_DISC_SEEN = H_SEQ_LSB + 2;
  // SEQ bit 3: a hub's heartbeats carry the generation of a port's announcement (it toggles
  // with each one); an adapter's carry the generation of the last heartbeat it heard, so that
  // the hub takes an H_HB_DISC_SEEN as the answer to its current announcement only (an
  // answer to the previous one may still be on its way when the next one starts)
  localparam int unsigned H_HB_DISC_GEN  = H_SEQ_LSB + 3;

  // SYNC frames (header + CRC, from the clock master: the hub, or node 0 back to back):
  // the frame's index (3 bits, counts sync frames on this link) and the master's time at
  // which the PREVIOUS sync frame (index - 1) left the master's link port (two-step: a
  // frame cannot carry the moment it leaves itself), valid unless no frame left before.
  localparam int unsigned C_SYNC_IDX      = 4;   // bits 6:4
  localparam int unsigned C_SYNC_STAMP    = 7;   // the stamp is valid
  localparam int unsigned H_SYNC_TIME_LSB = 8;   // bits 63:8: 56-bit departure time
  localparam int unsigned GTIME_W         = 56;  // global time width (cycles)

  localparam int unsigned MAX_PAYLOAD_WORDS = 32;                     // 256 bytes
  localparam int unsigned MAX_FRAME_WORDS   = MAX_PAYLOAD_WORDS + 2;  // + header + CRC

  // sequenced frame types (numbered, kept in the replay ring, go-back-N)
  function automatic logic tp_sequenced(input logic [3:0] tp);
    tp_sequenced = (tp != 4'h0) && (tp < TP_CTRL);
  endfunction
  function automatic logic tp_request(input logic [3:0] tp);
    tp_request = (tp == TP_RDREQ) || (tp == TP_ATREQ);
  endfunction
  function automatic logic tp_response(input logic [3:0] tp);
    tp_response = (tp == TP_RDRESP) || (tp == TP_ATRESP);
  endfunction
  // 64-bit payload words that follow header h: the 8-byte aligned image of LEN + 1 32-bit
  // words at ADDR for frames that carry data, 0 for the others (a read request's LEN and
  // ADDR name the range to read; an error response carries nothing)
  function automatic logic [5:0] payload_words(input logic [63:0] h);
    logic [3:0] tp;
    logic       has;
    tp  = h[H_TP_LSB +: 4];
    has = (tp == TP_DATA) || (tp == TP_ATREQ) || (tp_response(tp) && !h[C_RESP_ERR]);
    payload_words = has ? 6'((7'(h[H_ADDR_LSB]) + 7'(h[H_LEN_LSB +: 6]) + 7'd2) >> 1) : 6'd0;
  endfunction

endpackage : memchan_pkt_pkg

`default_nettype wire
