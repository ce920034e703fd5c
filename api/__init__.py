"""Where vision and solver meet, in rooms: `photo` (one photo end to end), `scale` (many
photos), `service` and `cli` (how people reach it), `train` (the models' training)."""
