/* Known-answer and model-checked tests for the benchmark data structures:
 * the AVL tree (bench/avl.c, kvmap) and the LRU cache (bench/lru.c, lrucache).
 * Each structure is also checked against a trivially correct reference model
 * over random operations, and each invariant checker is shown to catch a
 * corrupted structure. */
#include <stdio.h>
#include <string.h>

#include "avl.h"
#include "lru.h"
#include "test_util.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next_below(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static void avl_known_answers(void)
{
    avl_tree t;
    avl_init(&t, 1023);
    for (uint32_t k = 1; k <= 7; k++)
        CHECK(avl_insert(&t, k, k * 10) == 1, "insert %u", k);
    CHECK(t.root && t.root->key == 4, "1..7 ascending: root %u, want 4", t.root ? t.root->key : 0);
    CHECK(avl_check(&t) == 3, "1..7 ascending: height %d, want 3", avl_check(&t));
    uint32_t v = 0;
    CHECK(avl_find(&t, 5, &v) == 1 && v == 50, "find 5 -> %u", v);
    CHECK(avl_insert(&t, 5, 55) == 0 && avl_find(&t, 5, &v) == 1 && v == 55 && t.size == 7, "update 5");
    CHECK(avl_find(&t, 8, &v) == 0, "find absent 8");
    for (uint32_t k = 8; k <= 1023; k++)
        avl_insert(&t, k, k);
    CHECK(avl_check(&t) == 10, "1..1023 ascending: height %d, want 10 (a perfect tree)", avl_check(&t));
    CHECK(avl_remove(&t, 4) == 1 && avl_remove(&t, 4) == 0 && t.size == 1022, "remove 4 twice");
    for (uint32_t k = 1; k <= 1023; k++)
        avl_remove(&t, k);
    CHECK(t.root == NULL && t.size == 0 && avl_check(&t) == 0, "emptied");
    for (uint32_t k = 0; k < 1023; k++) /* every node went back to the pool */
        CHECK(avl_insert(&t, k * 7, k) == 1, "reinsert %u", k * 7);
    CHECK(avl_insert(&t, 1u << 30, 0) == -1 && t.size == 1023, "full pool refuses an insert");
    CHECK(avl_check(&t) >= 0, "full tree valid");
    avl_destroy(&t);
}

static void avl_against_model(void)
{
    enum { RANGE = 300, OPS = 20000 };
    avl_tree t;
    avl_init(&t, RANGE);
    int present[RANGE] = {0};
    size_t size = 0;
    int bad = 0;
    for (int i = 0; i < OPS && !bad; i++) {
        uint32_t key = next_below(RANGE), op = next_below(3), v;
        if (op == 0) {
            int r = avl_insert(&t, key, key + 1);
            bad |= r != !present[key];
            size += !present[key];
            present[key] = 1;
        } else if (op == 1) {
            bad |= avl_remove(&t, key) != present[key];
            size -= present[key];
            present[key] = 0;
        } else {
            bad |= avl_find(&t, key, &v) != present[key] || (present[key] && v != key + 1);
        }
        bad |= t.size != size || avl_check(&t) < 0;
        if (bad)
            CHECK(0, "AVL diverged from the model at op %d (op %u key %u)", i, op, key);
    }
    avl_destroy(&t);
}

static void avl_checker_catches_corruption(void)
{
    avl_tree t;
    avl_init(&t, 15);
    for (uint32_t k = 1; k <= 15; k++)
        avl_insert(&t, k, 0);
    CHECK(avl_check(&t) == 4, "15 keys: height 4");
    if (!t.root || !t.root->left || !t.root->right) {
        CHECK(0, "15 keys: the root lacks a child");
        avl_destroy(&t);
        return;
    }
    uint32_t saved = t.root->left->key;
    t.root->left->key = t.root->key + 1; /* order violation */
    CHECK(avl_check(&t) == -1, "checker missed an order violation");
    t.root->left->key = saved;
    t.root->right->height++; /* wrong stored height */
    CHECK(avl_check(&t) == -1, "checker missed a wrong height");
    t.root->right->height--;
    t.size++;
    CHECK(avl_check(&t) == -1, "checker missed a wrong size");
    avl_destroy(&t);
}

static void lru_known_answers(void)
{
    lru_cache c;
    lru_init(&c, 3);
    uint32_t v = 0, keys[8];
    CHECK(lru_get(&c, 1, &v) == 0, "empty cache hit");
    CHECK(lru_put(&c, 1, 10) == 0 && lru_put(&c, 2, 20) == 0 && lru_put(&c, 3, 30) == 0, "fill without eviction");
    CHECK(lru_get(&c, 1, &v) == 1 && v == 10, "hit 1");
    CHECK(lru_put(&c, 4, 40) == 1, "put 4 into a full cache evicts");
    CHECK(lru_get(&c, 2, &v) == 0, "2 was the least recently used and is gone");
    uint32_t n = lru_keys(&c, keys, 8);
    CHECK(n == 3 && keys[0] == 4 && keys[1] == 1 && keys[2] == 3, "recency order %u: %u %u %u, want 4 1 3", n,
          keys[0], keys[1], keys[2]);
    CHECK(lru_put(&c, 3, 33) == 0 && lru_get(&c, 3, &v) == 1 && v == 33, "update 3 in place");
    n = lru_keys(&c, keys, 8);
    CHECK(n == 3 && keys[0] == 3 && keys[1] == 4 && keys[2] == 1, "after touching 3: %u %u %u, want 3 4 1", keys[0],
          keys[1], keys[2]);
    CHECK(lru_check(&c) == 0, "valid");
    lru_destroy(&c);
}

/* Reference: an array of keys, most recent first. */
static void lru_against_model(void)
{
    enum { CAP = 8, RANGE = 20, OPS = 20000 };
    lru_cache c;
    lru_init(&c, CAP);
    uint32_t model[CAP], msize = 0, keys[CAP + 1];
    for (int i = 0; i < OPS; i++) {
        uint32_t key = next_below(RANGE), v = 0, at = msize;
        for (uint32_t j = 0; j < msize; j++)
            if (model[j] == key)
                at = j;
        int expect_hit = at < msize;
        int hit = lru_get(&c, key, &v);
        if (!hit)
            lru_put(&c, key, key * 3);
        if (at == msize && msize < CAP)
            msize++;
        else if (at == msize)
            at = CAP - 1; /* the least recent falls off */
        memmove(&model[1], &model[0], at * sizeof(uint32_t));
        model[0] = key;
        uint32_t n = lru_keys(&c, keys, CAP + 1);
        int same = n == msize && (!hit || v == key * 3) && hit == expect_hit && keys[0] == key &&
                   lru_check(&c) == 0;
        for (uint32_t j = 0; same && j < n; j++)
            same = keys[j] == model[j];
        if (!same) {
            CHECK(0, "LRU diverged from the model at op %d (key %u)", i, key);
            break;
        }
    }
    lru_destroy(&c);
}

static void lru_checker_catches_corruption(void)
{
    lru_cache c;
    lru_init(&c, 4);
    for (uint32_t k = 0; k < 4; k++)
        lru_put(&c, k, k);
    CHECK(lru_check(&c) == 0, "valid before corruption");
    uint32_t second = c.entries[c.head].next;
    c.entries[second].prev = second; /* broken back link */
    CHECK(lru_check(&c) == -1, "checker missed a broken back link");
    c.entries[second].prev = c.head;
    c.entries[c.head].key = c.entries[second].key; /* duplicate key, wrong bucket */
    CHECK(lru_check(&c) == -1, "checker missed a duplicated key");
    lru_destroy(&c);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    avl_known_answers();
    avl_against_model();
    avl_checker_catches_corruption();
    lru_known_answers();
    lru_against_model();
    lru_checker_catches_corruption();
    return test_done("structures");
}
