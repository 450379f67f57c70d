"""The operator dashboard's page: ``index.html``, ``app.js`` and ``app.css``, served as they are by
``kxm_grpc/server/dashboard.py`` (no build step: the files in the repository are what a browser gets)."""
