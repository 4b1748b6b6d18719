"""The colours of the game as drawn: terrains, sea, number discs, seats.

Plain Python (no matplotlib), so that the matplotlib figures (``catansim.plotting``)
and the HTML game viewer (``catansim.viewer``) draw with the same colours.

May import: nothing of catansim.
"""

# Conventional CATAN terrain colours, by terrain code (``constants.Terrain``).
TERRAIN_COLOURS = (
    "#2f7d32",  # forest
    "#c4622d",  # hills
    "#a5d46a",  # pasture
    "#f0c541",  # fields
    "#8a8f98",  # mountains
    "#e6d5a4",  # desert
)
SEA_COLOUR = "#4f8fc9"
SEA_HEX_COLOUR = "#6aa6da"
DISC_COLOUR = "#f7efdc"
RED_NUMBER_COLOUR = "#c62828"
# The seats' colour names (``constants.seat_colours``) as drawn.
SEAT_COLOURS = {"red": "#d32f2f", "blue": "#1e5bd6", "white": "#fafafa", "orange": "#f08a24"}
