/*
 * An AVL tree map (uint32 key -> uint32 value) over a preallocated node pool,
 * for the kvmap workload (compact-numa-aware-locks.txt §7.1.1: "a simple
 * key-value map implemented on top of an AVL tree protected with a single
 * lock").  Not thread-safe: the caller holds the lock.  Insert and remove never
 * call malloc; the pool holds `capacity` nodes.
 */
#ifndef LOCKLAB_BENCH_AVL_H
#define LOCKLAB_BENCH_AVL_H
#include <stddef.h>
#include <stdint.h>

typedef struct avl_node {
    struct avl_node *left, *right; /* right doubles as the free-list link */
    uint32_t key, value;
    int height; /* leaf = 1 */
} avl_node;

typedef struct avl_tree {
    avl_node *root;
    avl_node *pool, *free_list;
    size_t size, capacity;
} avl_tree;

int avl_init(avl_tree *t, size_t capacity); /* -1: out of memory */
void avl_destroy(avl_tree *t);
/* 1 inserted, 0 key present (value updated), -1 pool exhausted */
int avl_insert(avl_tree *t, uint32_t key, uint32_t value);
int avl_remove(avl_tree *t, uint32_t key); /* 1 removed, 0 absent */
int avl_find(const avl_tree *t, uint32_t key, uint32_t *value); /* 1 found (value set), 0 absent */
/* Checks order, balance, stored heights and size; returns the height, or -1 on a violation. */
int avl_check(const avl_tree *t);
#endif
