"""Work that spans domains (events, feed, auctions), called by routers and pages.

A flow calls the services of several domains in the request's transaction; no
domain service calls another domain's service for these steps.
"""
