"""Five in a row on the Kato point boards, for Meridian Table (docs/ADDING_A_GAME.md)."""
