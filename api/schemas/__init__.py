"""Request and response schemas (marshmallow), one module per resource. They are the API's contract
and its documentation: ``common`` (fields, bases, problems, health, paging), ``positions`` (each
game's position document, one module per game), ``games``, ``moves``, ``lobby``, ``me``,
``players``, ``ratings``, ``tournaments``, ``bots`` and ``webhooks``."""
