"""The HTTP layer of the JSON API: one router module per area (`app.api.<area>`).

Routers parse, authorise (a `Principal` from `app.core.principal`) and delegate to a
flow (`app.flows`) or a domain service; they sit above the flows, which sit above the
domain packages, which sit above `app.core` (contract `package-layers`).
"""
