"""Clubs: players who play together under one name, with leaders who let members in.

Owns: `Club` (a name unique whatever its capitals, the slug of its page, a description, who may
join: anyone at once, or by request that a leader answers) and `Membership` (a player in a club:
a leader or a member, active or asking to join). `clubs.services` is the only writer (found,
join, approve and decline requests, appoint leaders, remove members, leave, edit);
`clubs.selectors` the reads other apps may use (`is_member`, `is_leader`: the tournaments app asks
them for club-only events) and the pages' read models (the list, a club's page, its leaderboard).

Sits above accounts, ratings (the club's leaderboard reads `ratings.selectors`) and
`social.notices` (leaders are told of a request, a player of their approval: the site-wide
notices socket). It must never import tournaments, nor anything above it: apps above show
their part of a club's page through `clubs.panels` (a registry they append to from their
AppConfig.ready()). Nothing below clubs imports it.
"""
