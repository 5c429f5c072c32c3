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
  localparam logic [3:0] TP_CTRL   = 4'h8;  // control: heartbeat, link state, node-ID autoconf
  localparam logic [3:0] TP_LACK   = 4'h9;  // control: link acknowledge, cumulative up to SEQ
  localparam logic [3:0] TP_LNAK   = 4'hA;  // control: link negative ack, resend from SEQ

  // CMD bits of sequenced frames
  localparam int unsigned C_ACK_REQ = 4;     // bit 4: request acknowledgement
  localparam int unsigned C_DKIND   = 5;     // bits 6:5: destination kind (tx_pct DEST_KIND)
  localparam int unsigned C_EPOCH   = 7;     // bit 7: sender epoch (toggles at ERR_RESET)
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

  localparam int unsigned MAX_PAYLOAD_WORDS = 32;                     // 256 bytes
  localparam int unsigned MAX_FRAME_WORDS   = MAX_PAYLOAD_WORDS + 2;  // + header + CRC

endpackage : memchan_pkt_pkg

`default_nettype wire
