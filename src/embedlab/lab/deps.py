"""What a route needs, as `Annotated` dependencies, and the query parameters several pages share:
a handler names the thing by its type and FastAPI hands it over, built once per app where
building is slow.

    @router.get("/row")
    def row(vectors: TableDep, token: Token) -> RowLookup: ...     # ?table=minilm -> that table

TableName, Token, Seed, RecipeName, CorpusName, ThemeNames   query parameters several pages share
one_of(choices)  a query parameter that takes one of a list of names: Annotated[str, one_of(POOLINGS)]

LabDep           the app's Lab (served tables, services, cache folder)
TableDep         the served table named by ?table= (404 naming the served ones otherwise)
DefaultTableDep  the same, MiniLM's table when ?table= is left out
TableSourceDep   where the ?table= table was loaded from (a built-in name or a server path)
MiniLMDep        MiniLM's tokenizer and trained input embedding, shared by every page
RecipeDep        the ?recipe= recipe with its pipeline (bert: MiniLM's own; the others fresh)
EncoderDep       MiniLM's whole encoder (every layer), shared by the attention and context pages
BridgeDep        MiniLM's attention bridge, any layer and head
ContextDep       MiniLM's encoder with its static token table, for the static vs contextual page
DistillStepsDep  MiniLM distilled stage by stage, for the static from contextual page
LadderDep        the ?corpus= corpus's subword vocabularies, trained on first use
SubwordTableDep  the same corpus's vocabulary-size table, measured once per app
SubwordFolderDep where the subword vocabularies are kept
ComposingTablesDep the served subword tables (vectors for unseen words from character n-grams)
LiveRunDep       the app's one live training run
ArenaDep         the app's strategy-arena races (the quick one run from the page)
BagDep           the app's fastText classifier runs (the Bag of embeddings page), one at a time
UpdateTablesDep  the served tables that are training runs with update counts
ProjectorDep     the ?table= table's maps and colourings, each made once per app
ProjectorOfDep   the same, made only when called (a route that needs it for one of its options)
TiledDep         the ?table= table's tiled maps, built once in a child process and kept beside the table

HEAVY            `dependencies=[HEAVY]` on a route whose answer costs milliseconds of CPU: one such
                 answer is computed at a time, so the cheap routes are not queued behind them
HeavyDep         the same queue, for a route that keeps its answers: it queues only when it must
                 compute (`heavy.compute(make)` inside the keeper's factory); a kept answer is
                 served at once, never behind another page's computation
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Annotated, Any, TypeVar

import anyio
from fastapi import Depends, Query, Request

from embedlab.data.corpora import CORPORA, open_corpus
from embedlab.data.themes import THEMES
from embedlab.errors import MissingDataError, unknown_name
from embedlab.lab.state import Lab
from embedlab.models.context import ContextModel
from embedlab.models.encoder import Encoder
from embedlab.models.pipeline import Pipeline
from embedlab.sims.arena import ArenaLab
from embedlab.sims.attention import AttentionBridge
from embedlab.sims.bag import BagLab
from embedlab.sims.distill import DistillSteps
from embedlab.sims.gradients import has_update_counts
from embedlab.sims.limits import MAX_SEED, MAX_TOKEN
from embedlab.sims.projector import MAX_ROWS, Projector
from embedlab.sims.projector_tiles import TiledMaps
from embedlab.sims.recipe import MODEL, PRETRAINED, RECIPE_NAMES, Recipe, fresh_pipeline
from embedlab.sims.subword_table import VocabularyTable, measure
from embedlab.sims.subwords import VocabularyLadder
from embedlab.sims.training import LiveRun
from embedlab.vectors import Vectors

MAX_NAME = 200  # characters of a table name
MAX_CORPUS = 50  # characters of a corpus name
DEFAULT_CORPUS = "enwiki-sample"  # always there (gensim's test data); gcide needs a Debian package


def one_of(choices: Iterable[str], description: str | None = None) -> Any:
    """A query parameter that takes one of `choices` and nothing else (FastAPI answers 422 naming the
    pattern), the choices listed in the API's docs unless `description` says more. Each name is
    escaped: one holding a regex character ("1/sqrt(d)") stands for itself.

    >>> one_of(["mean", "first"]).metadata[0].pattern
    '^(mean|first)$'
    """
    choices = list(choices)
    pattern = "^(" + "|".join(map(re.escape, choices)) + ")$"
    return Query(pattern=pattern, description=description or f"one of {', '.join(choices)}")


TableName = Annotated[str, Query(min_length=1, max_length=MAX_NAME, description="a served table (see /api/tables)")]
RecipeName = Annotated[str, one_of(RECIPE_NAMES, "bert is MiniLM's own")]
CorpusName = Annotated[str, Query(max_length=MAX_CORPUS, description=f"a built-in corpus: {', '.join(CORPORA)}")]
Token = Annotated[str, Query(min_length=1, max_length=MAX_TOKEN, description=f"a key, 1..{MAX_TOKEN} characters")]
Seed = Annotated[int, Query(ge=0, le=MAX_SEED, description=f"the random seed, 0..{MAX_SEED}")]
# ?themes=animals&themes=colours: the theme groups a map shows (checked by data.themes.pick_themes)
ThemeNames = Annotated[
    list[str] | None,
    Query(max_length=len(THEMES), description="repeated: groups of /api/config's themes; default: all"),
]


def get_lab(request: Request) -> Lab:
    return request.app.state.lab


LabDep = Annotated[Lab, Depends(get_lab)]


def get_table(lab: LabDep, table: TableName) -> Vectors:
    """The served table `table`, loaded on first use (its `.name` is `table`)."""
    return lab.table(table)


def get_default_table(lab: LabDep, table: TableName = MODEL) -> Vectors:
    """As get_table; MiniLM's table when the request names none."""
    return lab.table(table)


def get_table_source(lab: LabDep, table: TableName) -> str:
    """Where the served table `table` was loaded from: a built-in name or a path on the server (which
    a page only hands to a sims function, never shows)."""
    if table not in lab.paths:
        raise unknown_name("table", table, lab.names)
    return lab.paths[table]


TableDep = Annotated[Vectors, Depends(get_table)]
DefaultTableDep = Annotated[Vectors, Depends(get_default_table)]
TableSourceDep = Annotated[str, Depends(get_table_source)]


def get_minilm(lab: LabDep) -> Pipeline:
    return lab.pipeline(MODEL)


MiniLMDep = Annotated[Pipeline, Depends(get_minilm)]


def get_recipe(lab: LabDep, recipe: RecipeName = PRETRAINED) -> Recipe:
    """The recipe's pipeline, built once per app; bert's is MiniLM's own (shared with other pages)."""
    if recipe == PRETRAINED:
        return Recipe(recipe, lab.pipeline(MODEL))
    return Recipe(recipe, lab.service(f"recipe:{recipe}", partial(fresh_pipeline, recipe)))


RecipeDep = Annotated[Recipe, Depends(get_recipe)]


def get_encoder(lab: LabDep) -> Encoder:
    return lab.service(f"encoder:{MODEL}", partial(Encoder.load, MODEL))


EncoderDep = Annotated[Encoder, Depends(get_encoder)]


def get_bridge(lab: LabDep, encoder: EncoderDep) -> AttentionBridge:
    return lab.service(f"attention:{MODEL}", partial(AttentionBridge, encoder))


BridgeDep = Annotated[AttentionBridge, Depends(get_bridge)]


def get_context(lab: LabDep, encoder: EncoderDep) -> ContextModel:
    return lab.service(f"context:{MODEL}", partial(ContextModel, encoder))


ContextDep = Annotated[ContextModel, Depends(get_context)]


def get_distill_steps(lab: LabDep, encoder: EncoderDep) -> DistillSteps:
    """MiniLM distilled stage by stage, built on first use (its token outputs kept in the cache)."""
    return lab.service(f"distill:{MODEL}", partial(DistillSteps.build, encoder))


DistillStepsDep = Annotated[DistillSteps, Depends(get_distill_steps)]


def get_subword_folder(lab: LabDep) -> Path:
    return lab.cache_dir / "subwords"


SubwordFolderDep = Annotated[Path, Depends(get_subword_folder)]


def get_ladder(lab: LabDep, folder: SubwordFolderDep, corpus: CorpusName = DEFAULT_CORPUS) -> VocabularyLadder:
    """The corpus's vocabulary ladder: trained on first use (a request waits), then read from `folder`."""
    if corpus not in CORPORA:
        raise unknown_name("corpus", corpus, CORPORA)
    return lab.service(f"subwords:{corpus}", lambda: VocabularyLadder.open(open_corpus(corpus), folder))


LadderDep = Annotated[VocabularyLadder, Depends(get_ladder)]


def get_subword_table(lab: LabDep, ladder: LadderDep, corpus: CorpusName = DEFAULT_CORPUS) -> VocabularyTable:
    """The ladder's figures on the corpus's held-out lines (reads the corpus again: enwiki-sample ~5 s)."""
    return lab.service(f"subword-table:{corpus}", lambda: measure(ladder, open_corpus(corpus)))


SubwordTableDep = Annotated[VocabularyTable, Depends(get_subword_table)]


def get_composing_tables(lab: LabDep) -> list[str]:
    """The served tables that build a vector for a word without a row from its character n-grams
    (`composes`: a fastText .bin). Each table is loaded to tell (and kept, as every served table); one that cannot be
    loaded is left out (Lab logs why)."""
    names = []
    for name in lab.names:
        try:
            if lab.table(name).composes:
                names.append(name)
        except MissingDataError:
            continue
    return names


ComposingTablesDep = Annotated[list[str], Depends(get_composing_tables)]


def get_live_run(lab: LabDep) -> LiveRun:
    """The app's one LiveRun, its folders under the lab's cache (closed at shutdown)."""
    return lab.service("training", lambda: LiveRun(lab.cache_dir / "training"))


LiveRunDep = Annotated[LiveRun, Depends(get_live_run)]


def get_arena(lab: LabDep) -> ArenaLab:
    """The app's race folders, under the lab's cache (a running quick race is left at shutdown)."""
    return lab.service("arena", lambda: ArenaLab(lab.cache_dir / "arena"))


ArenaDep = Annotated[ArenaLab, Depends(get_arena)]


def get_bag(lab: LabDep) -> BagLab:
    """The app's classifier runs, their .bin and .ftz measured under the lab's cache (closed at shutdown)."""
    return lab.service("bag", lambda: BagLab(lab.cache_dir / "bag"))


BagDep = Annotated[BagLab, Depends(get_bag)]


def get_update_tables(lab: LabDep) -> list[str]:
    """The served tables whose run folders hold update counts, each checked once per app."""
    checked = {name: partial(has_update_counts, lab.paths[name]) for name in lab.names}
    return [name for name, check in checked.items() if lab.service(f"update-counts:{name}", check)]


UpdateTablesDep = Annotated[list[str], Depends(get_update_tables)]


def get_projector(lab: LabDep, table: TableName) -> Projector:
    """The served table's Projector: its maps, once computed, serve every later request."""
    return lab.service(f"projector:{table}", lambda: Projector(whole_table(lab, table)))


def whole_table(lab: Lab, name: str) -> Vectors:
    """lab.table(name) for a view of every row at once (the 3-D map, a comparison): refused before
    the table is loaded when it has more rows than such a view holds (ten million keys alone would
    take gigabytes; the tiled 2-D map holds any number)."""
    get_tiled(lab, name).check_rows(MAX_ROWS)
    return lab.table(name)


ProjectorDep = Annotated[Projector, Depends(get_projector)]


def get_projector_of(lab: LabDep, table: TableName) -> Callable[[], Projector]:
    """get_projector for the ?table= table, called only when a route needs it (its table loaded then)."""
    return partial(get_projector, lab, table)


ProjectorOfDep = Annotated[Callable[[], Projector], Depends(get_projector_of)]


def get_tiled(lab: LabDep, table: TableName) -> TiledMaps:
    """The served table's tiled maps: each built once (in a child process) and kept beside the table."""
    if table not in lab.paths:
        raise unknown_name("table", table, lab.names)
    return lab.service(f"tiles:{table}", lambda: TiledMaps(table, lab.paths[table]))


TiledDep = Annotated[TiledMaps, Depends(get_tiled)]


def heavy_queue(request: Request) -> anyio.Semaphore:
    """The app's one heavy slot, made on first use; call it in the event loop (an async dependency).

    A semaphore, not a lock: a route's worker thread takes and gives it back in two separate calls
    into the event loop (HeavySlot), and an anyio.Lock may only be released by the task that took it.
    """
    state = request.app.state
    if getattr(state, "heavy", None) is None:
        state.heavy = anyio.Semaphore(1)
    return state.heavy


async def one_heavy_at_a_time(request: Request) -> AsyncIterator[None]:
    """Held while a heavy route computes its answer.

    Why: the server runs each request in a thread, and on a small machine 32 clients put 32 threads
    on the GIL and the cores at once; a lookup that takes 1.5 ms alone then waits behind attention
    maps and optimizer steps. Heavy answers wait here instead, in the event loop and using no CPU,
    one computed at a time (the math inside each may still use several cores).
    """
    async with heavy_queue(request):
        yield


HEAVY = Depends(one_heavy_at_a_time)

T = TypeVar("T")


class HeavySlot:
    """The heavy queue as seen from a route's worker thread, taken only around a computation.

    Why: a route that keeps its answers (a Graph nodes setting, a σ sweep, a table comparison) costs
    milliseconds once and microseconds after that; behind HEAVY its kept answer waited for every
    heavy computation queued before it (1.76 s measured for a 6 ms answer under load). The waiting
    happens in the event loop (anyio.from_thread), so a queued thread uses no CPU.
    """

    def __init__(self, slot: anyio.Semaphore) -> None:
        self._slot = slot  # heavy_queue's semaphore, shared with HEAVY

    def compute(self, make: Callable[[], T]) -> T:
        """make() while holding the heavy slot; call it from a route's worker thread (a sync route)."""
        anyio.from_thread.run(self._slot.acquire)
        try:
            return make()
        finally:
            anyio.from_thread.run_sync(self._slot.release)


async def get_heavy_slot(request: Request) -> HeavySlot:
    return HeavySlot(heavy_queue(request))


HeavyDep = Annotated[HeavySlot, Depends(get_heavy_slot)]
