"""Table-game pages: Liar's Poker, poker dice, Locus Poker (`/games/…`, `/g/{token}`;
templates: `app/templates/tables/`)."""
