"""The HTTP service and its phone page: `create_app(settings)`; see api/service/app.py."""

from api.service.app import create_app
from api.service.settings import Settings

__all__ = ["Settings", "create_app"]
