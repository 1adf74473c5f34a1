"""Layer 3, the settings: the config's values and the input files they come from.

The dataclasses a loaded config is made of, one config section's reader, the bounded text and
YAML readers every input file goes through, paytable and shoe files, and the one-shot
commands' output files. Loading a whole station config is the live station's
(``station.live.config``); this layer holds what that loading and the recordings share.
"""
