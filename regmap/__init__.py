"""memchan's register map (memchan.toml) and everything generated from it.

    model            loads and checks the TOML; the ordered constants every output renders
    formulas         derived values (soft-fabric geometry, system pages, transmit PCT rule)
    render_*         one module per output language: sv (package, register block), c, java, docs, vectors
    lint             the hand-layout scan of the code that uses the generated files
    uapi             the Java bindings of the driver's uapi header (libclang)
    cli              the entry point: regmap/gen.py or python3 -m regmap
"""
