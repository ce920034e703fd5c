"""The service's endpoints, one router per concern."""
