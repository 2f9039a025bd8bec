"""The error the command line reports as one line, without a traceback."""


class ConfigError(ValueError):
    """An expected error in the user's settings or surroundings (a path, an environment variable, a
    scheduler address): the message says what is wrong and how to fix it. ``interp-repro`` prints it
    as ``interp-repro: error: ...`` and exits with status 2."""
