rtl/memchan_hub_ack.sv
rtl/memchan_hub_inq.sv
rtl/memchan_hub_clock.sv
rtl/memchan_hub.sv
