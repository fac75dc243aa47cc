"""Players among themselves: the site-wide notices socket, who is online now, friends
(follows), and challenges to a table.

Owns: `social.notices` (the one way server code tells a player something on whatever page they
are on: `notify_user`), the `/ws/notices/` socket, presence on it ("online now"), `Follow`,
`Challenge` and each player's challenge preference.

Sits above tables (a challenge accepted creates a table and seats both players through
`tables.services`) and accounts. `social.notices` itself imports nothing but the channel
layer, so any app (tournaments, pairing) may send a notice without knowing the rest of social.
Nothing below social imports it.
"""
