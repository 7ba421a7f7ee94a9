/*
 * A report file replaced whole or not at all.  It is never written in place: a new file
 * is created next to it (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600), written, fsync'ed, and
 * renamed over the path, and the directory is fsync'ed.  A process killed while writing
 * leaves the previous report intact (and a PATH.tmp-PID-N file), a machine that crashes
 * leaves the previous report or the new one (never an empty or partial file under the
 * path: the data reaches the disk before the rename), and a symlink at the path is
 * replaced, never followed.  An existing path that is no regular file (/dev/null, a FIFO)
 * is written in place, as a shell redirection would: renamed over, a device node would
 * become a regular file.  0600: the report lists the addresses of the program's objects
 * (what ASLR hides) and its path, so only its owner reads it unless told otherwise (chmod,
 * or a directory's default ACL, which the kernel applies).  Whether a path can be written
 * so is checked at start-up (lp_path_writable, from profile_config.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile_report.h"

void lp_dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(dir, len, ".");
    else /* "/name": the root directory */
        snprintf(dir, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

/* Its directory exists and is writable, and the path is not a directory; or it is a
 * device or a FIFO we may write (written in place: open_special). */
int lp_path_writable(const char *path)
{
    char dir[4096];
    lp_dir_of(path, dir, sizeof dir);
    struct stat st;
    int e = 0;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode))
        e = access(path, W_OK) != 0 ? errno : 0;
    else if (stat(dir, &st) != 0)
        e = errno;
    else if (!S_ISDIR(st.st_mode))
        e = ENOTDIR;
    else if (access(dir, W_OK | X_OK) != 0)
        e = errno;
    else if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
        e = EISDIR;
    return e;
}

/* Make a rename in path's directory durable (fsync of the directory; best effort: a
 * file system that cannot sync a directory has nothing more to do). */
static void sync_dir_of(const char *path)
{
    char dir[4200];
    lp_dir_of(path, dir, sizeof dir);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

/* path, opened for writing in place if it is an existing file that is not a regular one
 * (a character device such as /dev/null, a FIFO: renaming over it would put a regular
 * file in its place); else -1.  Never a symlink (O_NOFOLLOW), never created. */
static int open_special(const char *path)
{
    int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* The new file next to path (PATH.tmp-PID-N: O_EXCL and O_NOFOLLOW, so nothing that
 * exists is opened, a symlink least of all), synced to disk, then renamed over path and
 * the rename synced: after a crash of the machine the path holds the previous file or the
 * new one, whole. */
int lp_replace_file(const char *path, void (*emit)(FILE *f, void *arg), void *arg)
{
    char tmp[4200];
    int fd = open_special(path);
    bool in_place = fd >= 0;
    for (unsigned k = 0; fd < 0 && k < 100; k++) {
        snprintf(tmp, sizeof tmp, "%s.tmp-%d-%u", path, (int)getpid(), k);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    int failed = f == NULL;
    if (f) {
        emit(f, arg);
        failed = fflush(f) != 0 || ferror(f);
        failed = failed || (!in_place && fsync(fd) != 0); /* the data before the rename that publishes it */
        failed |= fclose(f) != 0;
        failed = failed || (!in_place && rename(tmp, path) != 0);
        if (!failed && !in_place)
            sync_dir_of(path);
    } else if (fd >= 0) {
        close(fd);
    }
    if (!failed)
        return 0;
    int e = errno;
    if (fd >= 0 && !in_place)
        unlink(tmp);
    errno = e;
    return -1;
}
