# What the zygote's modules share, set as it starts and as it serves. Each name has this one
# owner and is read as `state.NAME` everywhere: a `from` import would copy a binding that is
# set later.

# Every run gets a network namespace of its own (EVOOTTER_ZYGOTE_NETNS), as cold runs do.
NETNS_PER_RUN = False

# The environment the zygote was started with, less evootter's own variables: what a run's
# `env_base` builds on, and what a start-over starts with.
START_ENV = {}

# Where a module the zygote holds may come from: the interpreter's library and
# site-packages, never the copy (real paths, each ending in "/").
ROOTS = ()

# The modules the zygote held when it forked the running child: a child reports the others.
ZYGOTE_MODULES = set()
