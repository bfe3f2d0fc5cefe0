"""The library side of each lab page, one module per page; no web framework in here. Pages only:
what the command line also needs lives below (models/, vectors/, advise/) and is called from here.

A page is three files in a line: lab/static/js/X.js <-> lab/routes/X.py <-> sims/X.py.

lookup.py      a token's row, one-hot × E, a themed PCA map, table slices for a heat map
size.py        a layout's parameters and memory (embedlab.sizing), the model presets, its activations
recipe.py      token + position + segment addends under each recipe, their sum and LayerNorm
patches.py     a photograph cut into P×P patches; one patch's pixels and its projection
tying.py       logits of a hidden state through tied and untied heads; parameter counts
scale.py       fresh token rows against sinusoid rows, with and without √D
init_sweep.py  TinyLM's token table at σ over six decades: norms at init, loss curves, explodes/stalls/learns
training.py    a word2vec run in a background thread, its frames aligned for a 2-D map
subwords.py    a word's pieces under a ladder of BPE vocabularies trained once and cached
subword_table.py  the subwords page's vocabulary-size table, measured on held-out lines
unseen_word.py the subwords page's unseen word in a subword table: n-grams, buckets, neighbours
geometry.py    a pair's dot product taken apart: norms, cosine, angle, distance
gradients.py   which rows a batch's gradient touches; optimizers' moves; a run's update counts
attention.py   layer 0's q·k with and without 1/√d_k on a real model's input embeddings
context.py     the static vs contextual page's caps over models.context.ContextModel
distill.py     MiniLM distilled stage by stage (outputs, PCA, weights, fitted); sentences under each and the teacher
bag.py         fastText's classifier on the gcide domains, trained in the background: P@1 over epochs, confusions
bag_rows.py    the bag page's typed text: its top labels and each input row's part of their scores
bag_size.py    the bag page's classifier as a .bin and, quantized, as a .ftz: P@1 and bytes
composition.py a multi-piece word's pieces against their neighbours, layer by layer (docs/lessons.md; no page)
arena.py       a real race's results, or a quick race run in the background while the page watches
limits.py      bounds several pages share: a token's length, a seed's range
once.py        MadeOnce: things made once per name, one lock per name (lab services, a projector's maps)
job.py         Job: one background job at a time in a daemon thread (the live run, the quick race)
child.py       in_child: work in a child process below the lab's priority (UMAP fits, map builds)
advise.py      the Advise page's limits over embedlab.advise.advice: a recipe, its sizes, the evidence
projector.py   every row of a table on one map (PCA or UMAP), colourings, a key's neighbours and their distortion
projector_tiles.py  any table as tiles: the map built in a child, tiles, overlays, search, a row's neighbours
nodes.py       karate club's node table at several passes of one run (walks + skip-gram), scored beside spectral
"""
