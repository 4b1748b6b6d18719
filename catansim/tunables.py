"""The tunables: the numbers that trade time, memory or patience against each other.

Each is read where it is used under the same name (``catansim.runs.runner.MEMORY_PER_GAME``
is this ``MEMORY_PER_GAME``), and defined here only. None changes a game: a game
depends on its seed and settings alone. Only ``MODEL_CAP`` changes a result (the win
model's sample of a large dataset).

May import: nothing (plain Python values; ``catansim.core``'s ``__init__`` reads one).
"""

# --- playing games (catansim.engine) --------------------------------------------------

# Games a thread of ``play_batch`` takes at a time: a sixteenth of its share, within
# these bounds. Small chunks balance threads when games differ in length; large ones
# cost fewer lock round trips.
THREAD_CHUNK_MIN = 16
THREAD_CHUNK_MAX = 512
# Rows of the event log ``play_game`` starts with; a game that needs more is played
# again with four times as many.
DEFAULT_LOG_ROWS = 20_000

# --- compiling the kernels (catansim.core) --------------------------------------------

# Seconds the cold compile's helper process may take before this process compiles its
# part itself (a cold compile on one core takes one to one and a half minutes).
HELPER_TIMEOUT = 900.0
# Days a kernel cache folder of another engine is kept after its last use (about
# 11 MB each); removed only when a new folder is made and no process holds it.
CACHE_KEEP_DAYS = 7

# --- runs (catansim.runs) --------------------------------------------------------------

# Games per Parquet part when an experiment file sets no ``batch_size``: a part is the
# unit of resuming, of a Dask task and of the memory a run holds.
DEFAULT_BATCH_SIZE = 20_000
# Memory of a local run, measured (catansim run, 4 default players): about 0.3 GB plus
# 2.5 KB per game of a part (the kernel's arrays and the part's tables, with the next
# part playing while one is written). A run checks it against the memory available
# before it starts. Bytes.
BASE_MEMORY = 300 * 2**20
MEMORY_PER_GAME = 2600
# Bytes on disk per game (both tables, zstd), measured: 120 with 4 players and 100 with
# 3 (parts of 20,000 games). A run estimates its dataset's size with it (a dataset's
# own records, when it has some, say better) and refuses one the disk cannot hold.
DISK_PER_GAME = 130
# How long a run waits to reach a Dask scheduler (Dask's duration string).
CONNECT_TIMEOUT = "20s"
# Deals per ``play_batch`` call of a tournament (the progress bar's step): a tournament
# keeps counts, not games, so its memory is that of one chunk of deals.
CHUNK_DEALS = 1_000

# --- tables and analyses (catansim.board.metrics, catansim.analysis.position) ----------

# Boards per block of ``board_features``, to bound its (54, 3, n) temporaries.
FEATURE_CHUNK = 65536
# Seat-games the win model (``analysis.position.win_model``) fits at most; a larger
# dataset is sampled by game.
MODEL_CAP = 200_000
