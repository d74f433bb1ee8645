"""How good the bots are: the rated ladder (:mod:`.ladder`) and calibration against table
games (:mod:`.calibrate`). Above the store, the analytics and the batch runner, which it
drives; the CLI calls it."""
