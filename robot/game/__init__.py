"""The game: the state machine, the tables it plays on (simulated and real), opponents, recorder and log."""
