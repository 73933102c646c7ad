// CMU PocketSphinx 5prealpha and sphinxbase (Debian: libpocketsphinx-dev, pocketsphinx-en-us).
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/cmd_ln.h>
#include <sphinxbase/logmath.h>
