/*
 * The compiled playout kernel of Kato's Meridians (meridian_table.games.kato._kernel).
 *
 * The same rules as game.py, written plainly: a colour per point, walks along the lines,
 * flood fills. It plays whole random playouts (and the bot's short rollouts, scored by
 * the secondary ending's estimate) in one call, which is where a search spends its time.
 * kernel.py is the only caller; it keeps a pure-Python twin (the same draws, the same
 * moves) for machines where this file does not build, and the tests prove that both
 * play the same game, play for play.
 *
 * A state crosses the boundary as a tuple of small ints (kernel.py packs it):
 *   (size, light0, light1, light2, dark0, dark1, dark2,
 *    to_move, turns_light, turns_dark, choice_open, swapped, winner, pie, tournament)
 * where lightK/darkK are 64-bit words of the bitboards (bit i = point i, column order).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define MAXN 160
#define MAXRAY 16
#define WORDS 3
#define PASS (-1)
#define SWAP (-2)
#define LIGHT 0
#define DARK 1

typedef struct {
    int ready;
    int n;
    int nb[MAXN][6];
    unsigned char rlen[MAXN][6];
    unsigned char ray[MAXN][6][MAXRAY];
} Tables;

static Tables TABLES[3]; /* sizes 5, 6, 7 */

typedef struct {
    const Tables *t;
    int size;
    signed char col[MAXN];
    int count[2];
    int to_move, turns[2], choice_open, swapped, winner, pie, tournament;
} Board;

/* splitmix64: small, fast, and easy to write the same in Python (kernel.py). */
static inline uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline int below(uint64_t *s, int n)
{
    return (int)(((next_u64(s) >> 32) * (uint64_t)n) >> 32);
}

static inline int first_along(const Board *b, int p, int d)
{
    const Tables *t = b->t;
    int len = t->rlen[p][d];
    const unsigned char *r = t->ray[p][d];
    for (int k = 0; k < len; k++) {
        if (b->col[r[k]] >= 0)
            return r[k];
    }
    return -1;
}

/* Empty points that see a stone of colour c along a line, flagged in `flag` (0/1). */
static void sight(const Board *b, int c, unsigned char *flag)
{
    const Tables *t = b->t;
    int n = t->n;
    memset(flag, 0, (size_t)n);
    for (int s = 0; s < n; s++) {
        if (b->col[s] != c)
            continue;
        for (int d = 0; d < 6; d++) {
            int len = t->rlen[s][d];
            const unsigned char *r = t->ray[s][d];
            for (int k = 0; k < len; k++) {
                int q = r[k];
                if (b->col[q] >= 0)
                    break;
                flag[q] = 1;
            }
        }
    }
}

/* The legal placements of the player to move, ascending; returns how many. */
static int legal(const Board *b, int *out)
{
    const Tables *t = b->t;
    int n = t->n;
    int c = b->to_move;
    int k = 0;
    unsigned char flag[MAXN];
    if (b->winner >= 0)
        return 0;
    if (b->turns[c] == 0 || (b->turns[c] == 1 && b->count[c] == 0)) {
        for (int p = 0; p < n; p++)
            if (b->col[p] < 0)
                out[k++] = p;
        return k;
    }
    if (b->turns[c] == 1) {
        /* The second stone: a path to the first, so not next to it. */
        int s = -1;
        for (int p = n - 1; p >= 0; p--)
            if (b->col[p] == c) {
                s = p;
                break;
            }
        memset(flag, 0, (size_t)n);
        for (int d = 0; d < 6; d++) {
            int len = t->rlen[s][d];
            const unsigned char *r = t->ray[s][d];
            for (int j = 0; j < len; j++) {
                if (b->col[r[j]] >= 0)
                    break;
                if (j) /* j = 0 is the neighbour */
                    flag[r[j]] = 1;
            }
        }
    } else {
        sight(b, c, flag);
    }
    for (int p = 0; p < n; p++)
        if (flag[p] && b->col[p] < 0)
            out[k++] = p;
    return k;
}

/* Flood-fill the groups of colour c: gid[p] = the group's lowest point, -1 elsewhere.
 * Returns the number of groups; `roots` gets each group's id. */
static int groups(const Board *b, int c, int *gid, int *roots)
{
    const Tables *t = b->t;
    int n = t->n;
    int stack[MAXN];
    int ng = 0;
    for (int p = 0; p < n; p++)
        gid[p] = -1;
    for (int p = 0; p < n; p++) {
        if (b->col[p] != c || gid[p] >= 0)
            continue;
        int top = 0;
        stack[top++] = p;
        gid[p] = p;
        roots[ng++] = p;
        while (top) {
            int x = stack[--top];
            for (int d = 0; d < 6; d++) {
                int y = t->nb[x][d];
                if (y >= 0 && b->col[y] == c && gid[y] < 0) {
                    gid[y] = p;
                    stack[top++] = y;
                }
            }
        }
    }
    return ng;
}

/* Remove colour c's groups with no path to another friendly group, all together.
 * Returns how many stones were taken; marks them in `taken` when it is not NULL. */
static int remove_dead(Board *b, int c, unsigned char *taken)
{
    const Tables *t = b->t;
    int n = t->n;
    int gid[MAXN], roots[MAXN];
    unsigned char alive[MAXN];
    int ng = groups(b, c, gid, roots);
    if (!ng)
        return 0;
    memset(alive, 0, (size_t)n);
    for (int p = 0; p < n; p++) {
        if (b->col[p] != c || alive[gid[p]])
            continue;
        for (int d = 0; d < 6; d++) {
            int a = first_along(b, p, d);
            if (a >= 0 && b->col[a] == c && gid[a] != gid[p]) {
                alive[gid[p]] = 1;
                break;
            }
        }
    }
    int removed = 0;
    for (int p = 0; p < n; p++) {
        if (b->col[p] == c && !alive[gid[p]]) {
            b->col[p] = -1;
            removed++;
            if (taken)
                taken[p] = 1;
        }
    }
    b->count[c] -= removed;
    return removed;
}

/* Apply a legal move code (a point, PASS or SWAP), as Game._apply does. */
static void apply(Board *b, int code, unsigned char *taken)
{
    int mover = b->to_move;
    if (code == SWAP) {
        b->swapped = !b->swapped;
        b->choice_open = 0;
        return;
    }
    if (code >= 0) {
        b->col[code] = (signed char)mover;
        b->count[mover]++;
    }
    b->turns[mover]++;
    int other = 1 - mover;
    if (b->pie)
        b->choice_open = mover == DARK && b->turns[DARK] == 1;
    if (b->turns[other] >= 2) {
        if (remove_dead(b, mover, taken) && !b->count[mover] && !b->tournament)
            b->winner = other;
        if (!b->count[other])
            b->winner = mover;
    }
    b->to_move = other;
}

/* The seat (0 or 1) that acts now, as Game.seat_to_move - 1. */
static int seat_to_move(const Board *b)
{
    if (!b->pie)
        return b->to_move;
    if (b->turns[DARK] == 0)
        return 0;
    int holds_dark = b->swapped ? 1 : 0;
    return b->to_move == DARK ? holds_dark : 1 - holds_dark;
}

/* True when the player to move (from its third turn on) may place on empty point p:
 * the first stone along one of its six lines is its own. */
static inline int sees_own(const Board *b, int p, int c)
{
    for (int d = 0; d < 6; d++) {
        int a = first_along(b, p, d);
        if (a >= 0 && b->col[a] == c)
            return 1;
    }
    return 0;
}

/* A uniform draw among: the legal points ascending (PASS alone when there are none),
 * then SWAP while the pie choice is open.
 * From the mover's third turn on, with no pie choice open, it first tries up to
 * PICK_TRIES points drawn uniformly from the whole board and takes the first that is
 * legal (uniform among the legal points, at a fraction of the cost of listing them);
 * only when all miss does it list them and draw once. The Python twin does the same. */
#define PICK_TRIES 12
static int pick(const Board *b, uint64_t *rng, int *moves)
{
    int c = b->to_move;
    if (!b->choice_open && b->turns[c] >= 2 && b->winner < 0) {
        int n = b->t->n;
        for (int i = 0; i < PICK_TRIES; i++) {
            int p = below(rng, n);
            if (b->col[p] < 0 && sees_own(b, p, c))
                return p;
        }
    }
    int k = legal(b, moves);
    if (!k)
        moves[k++] = PASS;
    if (b->choice_open)
        moves[k++] = SWAP;
    return moves[below(rng, k)];
}

/* Colour c's safe points: empty points it sees where a stone of its would belong to a
 * group with a path (Game.safe_mask). */
static int safe_count(const Board *b, int c)
{
    const Tables *t = b->t;
    int n = t->n;
    int gid[MAXN], roots[MAXN];
    int nlinks[MAXN];
    int linked[MAXN][8];
    unsigned char flag[MAXN];
    groups(b, c, gid, roots);
    memset(nlinks, 0, sizeof(nlinks));
    for (int p = 0; p < n; p++) {
        if (b->col[p] != c)
            continue;
        int g = gid[p];
        for (int d = 0; d < 6; d++) {
            int a = first_along(b, p, d);
            if (a < 0 || b->col[a] != c || gid[a] == g)
                continue;
            int h = gid[a], seen = 0;
            int m = nlinks[g] < 8 ? nlinks[g] : 8;
            for (int j = 0; j < m; j++)
                if (linked[g][j] == h)
                    seen = 1;
            if (!seen) {
                if (nlinks[g] < 8)
                    linked[g][nlinks[g]] = h;
                nlinks[g]++; /* past 8 the count may repeat a group: it only grows */
            }
        }
    }
    sight(b, c, flag);
    int count = 0;
    for (int p = 0; p < n; p++) {
        if (!flag[p] || b->col[p] >= 0)
            continue;
        int adj[6], nadj = 0;
        for (int d = 0; d < 6; d++) {
            int y = t->nb[p][d];
            if (y >= 0 && b->col[y] == c) {
                int g = gid[y], dup = 0;
                for (int j = 0; j < nadj; j++)
                    if (adj[j] == g)
                        dup = 1;
                if (!dup)
                    adj[nadj++] = g;
            }
        }
        int alive = 0;
        for (int d = 0; d < 6 && !alive; d++) {
            int a = first_along(b, p, d);
            if (a >= 0 && b->col[a] == c) {
                int in = 0;
                for (int j = 0; j < nadj; j++)
                    if (adj[j] == gid[a])
                        in = 1;
                if (!in)
                    alive = 1;
            }
        }
        for (int i = 0; i < nadj && !alive; i++) {
            int g = adj[i];
            if (nlinks[g] > nadj - 1) {
                alive = 1; /* more linked groups than the others next to p */
                break;
            }
            for (int j = 0; j < nlinks[g] && !alive; j++) {
                int in = 0;
                for (int q = 0; q < nadj; q++)
                    if (adj[q] == linked[g][j])
                        in = 1;
                if (!in)
                    alive = 1;
            }
        }
        count += alive;
    }
    return count;
}

/* --- the boundary ----------------------------------------------------------------- */

static int read_state(PyObject *state, Board *b)
{
    long v[15];
    if (!PyTuple_Check(state) || PyTuple_GET_SIZE(state) != 15) {
        PyErr_SetString(PyExc_ValueError, "a kernel state is a tuple of 15 ints");
        return -1;
    }
    uint64_t words[2][WORDS];
    for (int i = 0; i < 15; i++) {
        PyObject *item = PyTuple_GET_ITEM(state, i);
        if (i >= 1 && i <= 6) {
            words[(i - 1) / 3][(i - 1) % 3] = PyLong_AsUnsignedLongLong(item);
            if (PyErr_Occurred())
                return -1;
            continue;
        }
        v[i] = PyLong_AsLong(item);
        if (v[i] == -1 && PyErr_Occurred())
            return -1;
    }
    if (v[0] < 5 || v[0] > 7 || !TABLES[v[0] - 5].ready) {
        PyErr_Format(PyExc_ValueError, "board size %ld has no tables (call setup first)", v[0]);
        return -1;
    }
    b->size = (int)v[0];
    b->t = &TABLES[v[0] - 5];
    b->count[0] = b->count[1] = 0;
    for (int p = 0; p < b->t->n; p++) {
        int w = p >> 6, bit = p & 63;
        int l = (int)(words[0][w] >> bit & 1), d = (int)(words[1][w] >> bit & 1);
        b->col[p] = l ? LIGHT : d ? DARK : -1;
        b->count[0] += l;
        b->count[1] += d && !l;
    }
    b->to_move = (int)v[7];
    b->turns[0] = (int)v[8];
    b->turns[1] = (int)v[9];
    b->choice_open = (int)v[10];
    b->swapped = (int)v[11];
    b->winner = (int)v[12];
    b->pie = (int)v[13];
    b->tournament = (int)v[14];
    return 0;
}

static PyObject *write_state(const Board *b)
{
    uint64_t words[2][WORDS] = {{0, 0, 0}, {0, 0, 0}};
    for (int p = 0; p < b->t->n; p++)
        if (b->col[p] >= 0)
            words[b->col[p]][p >> 6] |= (uint64_t)1 << (p & 63);
    return Py_BuildValue("(iKKKKKKiiiiiiii)", b->size, (unsigned long long)words[0][0],
                         (unsigned long long)words[0][1], (unsigned long long)words[0][2],
                         (unsigned long long)words[1][0], (unsigned long long)words[1][1],
                         (unsigned long long)words[1][2], b->to_move, b->turns[0],
                         b->turns[1], b->choice_open, b->swapped, b->winner, b->pie,
                         b->tournament);
}

static uint64_t read_seed(PyObject *seed, int *err)
{
    uint64_t s = PyLong_AsUnsignedLongLongMask(seed);
    *err = s == (uint64_t)-1 && PyErr_Occurred();
    return s;
}

PyDoc_STRVAR(setup_doc, "setup(size, neighbours): the tables of one board size.\n\n"
                        "neighbours[d][i] is the point next to i in direction d (-1: off).");

static PyObject *k_setup(PyObject *self, PyObject *args)
{
    int size;
    PyObject *nbs;
    if (!PyArg_ParseTuple(args, "iO", &size, &nbs))
        return NULL;
    if (size < 5 || size > 7) {
        PyErr_Format(PyExc_ValueError, "board size %d is not 5, 6 or 7", size);
        return NULL;
    }
    Tables *t = &TABLES[size - 5];
    PyObject *seq = PySequence_Fast(nbs, "neighbours must be a sequence of 6 sequences");
    if (!seq)
        return NULL;
    if (PySequence_Fast_GET_SIZE(seq) != 6) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "neighbours must hold 6 directions");
        return NULL;
    }
    int n = -1;
    for (int d = 0; d < 6; d++) {
        PyObject *row = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, d), "a direction's "
                                        "neighbours must be a sequence");
        if (!row) {
            Py_DECREF(seq);
            return NULL;
        }
        Py_ssize_t len = PySequence_Fast_GET_SIZE(row);
        if (len < 1 || len > MAXN || (n >= 0 && len != n)) {
            Py_DECREF(row);
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "neighbour rows must share one length <= 160");
            return NULL;
        }
        n = (int)len;
        for (int i = 0; i < n; i++) {
            long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(row, i));
            if ((v == -1 && PyErr_Occurred()) || v < -1 || v >= MAXN) {
                Py_DECREF(row);
                Py_DECREF(seq);
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "a neighbour is out of range");
                return NULL;
            }
            t->nb[i][d] = (int)v;
        }
        Py_DECREF(row);
    }
    Py_DECREF(seq);
    t->n = n;
    for (int i = 0; i < n; i++) {
        for (int d = 0; d < 6; d++) {
            int len = 0, p = t->nb[i][d];
            while (p >= 0 && len < MAXRAY) {
                t->ray[i][d][len++] = (unsigned char)p;
                p = t->nb[p][d];
            }
            t->rlen[i][d] = (unsigned char)len;
        }
    }
    t->ready = 1;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(legal_doc, "legal(state) -> tuple of the legal points, ascending.");

static PyObject *k_legal(PyObject *self, PyObject *args)
{
    PyObject *state;
    Board b;
    int moves[MAXN];
    if (!PyArg_ParseTuple(args, "O", &state) || read_state(state, &b) < 0)
        return NULL;
    int k = legal(&b, moves);
    PyObject *out = PyTuple_New(k);
    if (!out)
        return NULL;
    for (int i = 0; i < k; i++)
        PyTuple_SET_ITEM(out, i, PyLong_FromLong(moves[i]));
    return out;
}

PyDoc_STRVAR(play_doc, "play(state, code) -> (state, taken): apply one legal move code.");

static PyObject *k_play(PyObject *self, PyObject *args)
{
    PyObject *state;
    int code;
    Board b;
    unsigned char taken[MAXN];
    if (!PyArg_ParseTuple(args, "Oi", &state, &code) || read_state(state, &b) < 0)
        return NULL;
    if (code < SWAP || code >= b.t->n || (code >= 0 && b.col[code] >= 0)) {
        PyErr_Format(PyExc_ValueError, "move code %d is not an empty point, PASS or SWAP",
                     code);
        return NULL;
    }
    memset(taken, 0, sizeof(taken));
    apply(&b, code, taken);
    PyObject *list = PyList_New(0);
    if (!list)
        return NULL;
    for (int p = 0; p < b.t->n; p++) {
        if (taken[p]) {
            PyObject *v = PyLong_FromLong(p);
            if (!v || PyList_Append(list, v) < 0) {
                Py_XDECREF(v);
                Py_DECREF(list);
                return NULL;
            }
            Py_DECREF(v);
        }
    }
    PyObject *st = write_state(&b);
    if (!st) {
        Py_DECREF(list);
        return NULL;
    }
    return Py_BuildValue("(NN)", st, list);
}

PyDoc_STRVAR(safe_doc, "safe_counts(state) -> (light, dark): the number of safe points.");

static PyObject *k_safe_counts(PyObject *self, PyObject *args)
{
    PyObject *state;
    Board b;
    if (!PyArg_ParseTuple(args, "O", &state) || read_state(state, &b) < 0)
        return NULL;
    return Py_BuildValue("(ii)", safe_count(&b, LIGHT), safe_count(&b, DARK));
}

PyDoc_STRVAR(playout_doc,
             "playout(state, seed, limit) -> (plies, state): uniformly random legal moves "
             "until the game ends or `limit` plies are played.");

static PyObject *k_playout(PyObject *self, PyObject *args)
{
    PyObject *state, *seed_obj;
    long limit;
    Board b;
    int moves[MAXN + 2], err;
    if (!PyArg_ParseTuple(args, "OOl", &state, &seed_obj, &limit) || read_state(state, &b) < 0)
        return NULL;
    uint64_t rng = read_seed(seed_obj, &err);
    if (err)
        return NULL;
    long plies = 0;
    Py_BEGIN_ALLOW_THREADS
    while (b.winner < 0 && plies < limit) {
        apply(&b, pick(&b, &rng, moves), NULL);
        plies++;
    }
    Py_END_ALLOW_THREADS
    return Py_BuildValue("(lN)", plies, write_state(&b));
}

PyDoc_STRVAR(rollout_doc,
             "rollout(state, seed, plies) -> (moves, state, light_safe, dark_safe): a short "
             "random playout for the search. `moves` packs each ply as seat * 1024 + code + 2; "
             "the safe-point counts are of the final position (0, 0 once it is won).");

static PyObject *k_rollout(PyObject *self, PyObject *args)
{
    PyObject *state, *seed_obj;
    int limit;
    Board b;
    int moves[MAXN + 2], played[512], err;
    if (!PyArg_ParseTuple(args, "OOi", &state, &seed_obj, &limit) || read_state(state, &b) < 0)
        return NULL;
    uint64_t rng = read_seed(seed_obj, &err);
    if (err)
        return NULL;
    if (limit < 0 || limit > 512) {
        PyErr_SetString(PyExc_ValueError, "a rollout is 0 to 512 plies");
        return NULL;
    }
    int k = 0, light = 0, dark = 0;
    Py_BEGIN_ALLOW_THREADS
    while (b.winner < 0 && k < limit) {
        int seat = seat_to_move(&b);
        int code = pick(&b, &rng, moves);
        played[k++] = seat * 1024 + code + 2;
        apply(&b, code, NULL);
    }
    if (b.winner < 0) {
        light = safe_count(&b, LIGHT);
        dark = safe_count(&b, DARK);
    }
    Py_END_ALLOW_THREADS
    PyObject *out = PyTuple_New(k);
    if (!out)
        return NULL;
    for (int i = 0; i < k; i++)
        PyTuple_SET_ITEM(out, i, PyLong_FromLong(played[i]));
    return Py_BuildValue("(NNii)", out, write_state(&b), light, dark);
}

PyDoc_STRVAR(select_doc,
             "select(n, w, an, aw, visits, rave, rave_k, explore) -> index: the child that "
             "UCT (blended with RAVE when `rave`) descends into; the same arithmetic, in the "
             "same order, as bot.Search._select.");

static PyObject *k_select(PyObject *self, PyObject *args)
{
    PyObject *n, *w, *an, *aw;
    long visits;
    int rave;
    double rave_k, explore;
    if (!PyArg_ParseTuple(args, "O!O!O!O!lpdd", &PyList_Type, &n, &PyList_Type, &w,
                          &PyList_Type, &an, &PyList_Type, &aw, &visits, &rave, &rave_k,
                          &explore))
        return NULL;
    Py_ssize_t k = PyList_GET_SIZE(n);
    if (PyList_GET_SIZE(w) != k || PyList_GET_SIZE(an) != k || PyList_GET_SIZE(aw) != k) {
        PyErr_SetString(PyExc_ValueError, "select: the four lists differ in length");
        return NULL;
    }
    double log_n = log((double)(visits + 1));
    double beta = sqrt(rave_k / ((double)(3 * visits) + rave_k));
    Py_ssize_t best = 0;
    double best_score = -1.0;
    for (Py_ssize_t i = 0; i < k; i++) {
        long ni = PyLong_AsLong(PyList_GET_ITEM(n, i));
        long ani = PyLong_AsLong(PyList_GET_ITEM(an, i));
        double score;
        if (PyErr_Occurred())
            return NULL;
        if (ni == 0) {
            if (rave) {
                double awi = PyFloat_AsDouble(PyList_GET_ITEM(aw, i));
                score = (ani ? awi / (double)ani : 0.5) + 1.0;
            } else {
                score = 2.0;
            }
        } else {
            double q = PyFloat_AsDouble(PyList_GET_ITEM(w, i)) / (double)ni;
            if (rave && ani) {
                double awi = PyFloat_AsDouble(PyList_GET_ITEM(aw, i));
                q = (1 - beta) * q + beta * awi / (double)ani;
            }
            score = q + explore * sqrt(log_n / (double)ni);
        }
        if (PyErr_Occurred())
            return NULL;
        if (score > best_score) {
            best = i;
            best_score = score;
        }
    }
    return PyLong_FromSsize_t(best);
}

static PyMethodDef methods[] = {
    {"setup", k_setup, METH_VARARGS, setup_doc},
    {"legal", k_legal, METH_VARARGS, legal_doc},
    {"play", k_play, METH_VARARGS, play_doc},
    {"safe_counts", k_safe_counts, METH_VARARGS, safe_doc},
    {"playout", k_playout, METH_VARARGS, playout_doc},
    {"rollout", k_rollout, METH_VARARGS, rollout_doc},
    {"select", k_select, METH_VARARGS, select_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernel",
    "The compiled playout kernel of Kato's Meridians (see kernel.py).", -1, methods,
};

PyMODINIT_FUNC PyInit__kernel(void)
{
    return PyModule_Create(&module);
}
