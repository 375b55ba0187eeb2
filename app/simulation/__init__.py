"""A whole rogaine simulated through the HTTP API (issue 10).

Pure parts (no HTTP, no clock, randomness only from a seeded `random.Random`):
`cards` (a participant's own reading of a hand), `course` (the seed course and
walking times), `strategies` (play and bidding), `devices` (offline stretches and
late, out-of-order syncs), `agent` (what one participant knows and does).
`runner` drives them against the API through `client`; `report` prints the result.
"""
