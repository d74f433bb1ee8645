"""How good the bots are: the rated ladder (:mod:`.ladder`) and calibration against table
games (:mod:`.calibrate`); and how good the implied-cost fit is: engine games of random armies
(:mod:`.cost_games`) and synthetic games whose true prices are known (:mod:`.synthetic_costs`).
Above the store, the analytics and the batch runner, which it drives; the CLI calls it."""
