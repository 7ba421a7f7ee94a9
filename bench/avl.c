/* AVL tree over a node pool (see avl.h).  Recursive insert/remove with the
 * four classic rotations; heights stored per node. */
#include "avl.h"

#include <stdlib.h>

static int height(const avl_node *n) { return n ? n->height : 0; }
static int max_int(int a, int b) { return a > b ? a : b; }
static void update(avl_node *n) { n->height = 1 + max_int(height(n->left), height(n->right)); }

/* One rotation at n: its child on side `right` (0: the left child, a right
 * rotation; 1: the right child, a left rotation) takes n's place. */
static avl_node *rotate(avl_node *n, int right)
{
    avl_node **up = right ? &n->right : &n->left;
    avl_node *c = *up;
    avl_node **inner = right ? &c->left : &c->right;
    *up = *inner;
    *inner = n;
    update(n);
    update(c);
    return c;
}
static avl_node *rotate_right(avl_node *n) { return rotate(n, 0); }
static avl_node *rotate_left(avl_node *n) { return rotate(n, 1); }

/* Restores |balance| <= 1 at n after one insert or remove below it. */
static avl_node *rebalance(avl_node *n)
{
    update(n);
    int balance = height(n->left) - height(n->right);
    if (balance > 1) {
        if (height(n->left->left) < height(n->left->right))
            n->left = rotate_left(n->left);
        return rotate_right(n);
    }
    if (balance < -1) {
        if (height(n->right->right) < height(n->right->left))
            n->right = rotate_right(n->right);
        return rotate_left(n);
    }
    return n;
}

int avl_init(avl_tree *t, size_t capacity)
{
    t->root = NULL;
    t->size = 0;
    t->capacity = capacity;
    t->pool = calloc(capacity ? capacity : 1, sizeof(avl_node));
    if (!t->pool)
        return -1;
    t->free_list = NULL;
    for (size_t i = capacity; i-- > 0;) {
        t->pool[i].right = t->free_list;
        t->free_list = &t->pool[i];
    }
    return 0;
}

void avl_destroy(avl_tree *t)
{
    free(t->pool);
    t->pool = t->free_list = t->root = NULL;
}

static avl_node *insert_at(avl_tree *t, avl_node *n, uint32_t key, uint32_t value, int *result)
{
    if (!n) {
        avl_node *fresh = t->free_list;
        if (!fresh) {
            *result = -1;
            return NULL;
        }
        t->free_list = fresh->right;
        *fresh = (avl_node){NULL, NULL, key, value, 1};
        *result = 1;
        return fresh;
    }
    if (key < n->key)
        n->left = insert_at(t, n->left, key, value, result);
    else if (key > n->key)
        n->right = insert_at(t, n->right, key, value, result);
    else {
        n->value = value;
        *result = 0;
        return n;
    }
    return *result == 1 ? rebalance(n) : n;
}

int avl_insert(avl_tree *t, uint32_t key, uint32_t value)
{
    int result = 0;
    t->root = insert_at(t, t->root, key, value, &result);
    t->size += result == 1;
    return result;
}

/* Detaches the minimum of the subtree n into *min; returns the new subtree. */
static avl_node *detach_min(avl_node *n, avl_node **min)
{
    if (!n->left) {
        *min = n;
        return n->right;
    }
    n->left = detach_min(n->left, min);
    return rebalance(n);
}

static avl_node *remove_at(avl_tree *t, avl_node *n, uint32_t key, int *removed)
{
    if (!n)
        return NULL;
    if (key < n->key)
        n->left = remove_at(t, n->left, key, removed);
    else if (key > n->key)
        n->right = remove_at(t, n->right, key, removed);
    else {
        avl_node *replacement;
        if (!n->left || !n->right)
            replacement = n->left ? n->left : n->right;
        else {
            avl_node *successor;
            avl_node *right = detach_min(n->right, &successor);
            successor->left = n->left;
            successor->right = right;
            replacement = rebalance(successor);
        }
        n->left = NULL;
        n->right = t->free_list;
        t->free_list = n;
        *removed = 1;
        return replacement;
    }
    return *removed ? rebalance(n) : n;
}

int avl_remove(avl_tree *t, uint32_t key)
{
    int removed = 0;
    t->root = remove_at(t, t->root, key, &removed);
    t->size -= (size_t)removed;
    return removed;
}

int avl_find(const avl_tree *t, uint32_t key, uint32_t *value)
{
    const avl_node *n = t->root;
    while (n) {
        if (key == n->key) {
            *value = n->value;
            return 1;
        }
        n = key < n->key ? n->left : n->right;
    }
    return 0;
}

/* Height of n if every key lies in (lo, hi) (exclusive, as 64-bit bounds) and
 * the subtree is balanced with correct heights; -1 otherwise.  Counts nodes. */
static int check_at(const avl_node *n, int64_t lo, int64_t hi, size_t *count)
{
    if (!n)
        return 0;
    if ((int64_t)n->key <= lo || (int64_t)n->key >= hi)
        return -1;
    int hl = check_at(n->left, lo, n->key, count);
    int hr = check_at(n->right, n->key, hi, count);
    if (hl < 0 || hr < 0 || hl - hr > 1 || hr - hl > 1 || n->height != 1 + max_int(hl, hr))
        return -1;
    (*count)++;
    return n->height;
}

int avl_check(const avl_tree *t)
{
    size_t count = 0;
    int h = check_at(t->root, -1, (int64_t)UINT32_MAX + 1, &count);
    return h >= 0 && count == t->size ? h : -1;
}
