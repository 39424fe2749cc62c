"""Metropolys table companion: the referee and bookkeeper beside the real board."""

__version__ = "0.1.0"


def create_app(config=None):
    """Build the Flask app; imported lazily so `companion score` never loads Flask."""
    from companion.app import create_app as _create_app

    return _create_app(config)
