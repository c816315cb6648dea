// Anchor so the Verilated-models library always has a source of its own.
