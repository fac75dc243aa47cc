"""Settings for Dominologist, read from the environment (and an optional `.env`).

Every variable is documented in `.env.example`. With nothing set, the house runs on the
embedded default: SQLite under `var/`, a SQLite channel layer, Celery on the filesystem
broker. `DATABASE_URL` switches to PostgreSQL and `REDIS_URL` to Redis for both the channel
layer and the broker.
"""

from __future__ import annotations

import ipaddress
import os
import sys
from email.utils import parseaddr
from pathlib import Path

import environ
from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
if (BASE_DIR / ".env").exists():
    environ.Env.read_env(BASE_DIR / ".env", overwrite=False)
# Our variables (all documented in .env.example): set to nothing means "use the default".
HOUSE_VARIABLES = [
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "CSRF_TRUSTED_ORIGINS",
    "VAR_DIR",
    "LOG_LEVEL",
    "LOG_FORMAT",
    "PROMETHEUS_MULTIPROC_DIR",
    "METRICS_ALLOWED_NETWORKS",
    "DATABASE_URL",
    "CONN_MAX_AGE",
    "REDIS_URL",
    "CHANNELS_PREFIX",
    "REDIS_LAYER_CONNECTIONS",
    "CELERY_BROKER_URL",
    "CELERY_POLL_SECONDS",
    "CELERY_TASK_ALWAYS_EAGER",
    "CELERY_CONCURRENCY",
    "BEAT_LEASE_SECONDS",
    "BEAT_LEASE_KEY",
    "ACCOUNT_EMAIL_VERIFICATION",
    "AGE_VERIFY_WITHIN_DAYS",
    "LOGIN_PLACE_WAIT_SECONDS",
    "GYM_CLOCK_GRACE_MS",
    "GYM_CLOCK_TIMER_SLACK_MS",
    "SOCKET_DATABASE_INLINE",
    "SERVER_GC_FULL_SECONDS",
    "GYM_CLOCK_SWEEP_SECONDS",
    "LEAVE_GRACE_SECONDS",
    "LEAVE_GRACE_CLOSED_SECONDS",
    "EMAIL_URL",
    "DEFAULT_FROM_EMAIL",
    "SUPPORT_EMAIL",
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "HOST",
    "PORT",
    "HOUSE_PLAYER_PACE_SECONDS",
    "PRACTICE_UNOPENED_MINUTES",
    "LEDGER_SIGNUP_DOLLARS",
    "LEDGER_SIGNUP_BOOKS",
    "LEDGER_ALLOWANCE_DOLLARS",
    "LEDGER_ALLOWANCE_BOOKS",
]
for _name in HOUSE_VARIABLES:
    if os.environ.get(_name) == "":
        del os.environ[_name]

# Under pytest everything the tests write (databases, broker folders) goes to var/test/, one set
# per xdist worker, so a running `make run` and the suite never share a file.
TESTING = "pytest" in sys.modules
_TEST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
VAR_DIR = Path(
    env.str(
        "VAR_DIR",
        default=str(BASE_DIR / "var" / "test" / _TEST_WORKER) if TESTING else str(BASE_DIR / "var"),
    )
)
VAR_DIR.mkdir(parents=True, exist_ok=True)

# --- Metrics (dominoes_site/metrics.py) -------------------------------------------------------
# Every process of a host writes its figures here (prometheus-client's multiprocess mode, which
# reads the variable when the first metric is made: so it is set here, before any is).
PROMETHEUS_MULTIPROC_DIR = Path(
    env.str("PROMETHEUS_MULTIPROC_DIR", default=str(VAR_DIR / "metrics"))
)
PROMETHEUS_MULTIPROC_DIR.mkdir(parents=True, exist_ok=True)
os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(PROMETHEUS_MULTIPROC_DIR)
# Who may read /metrics without signing in as staff: addresses the request comes from.
METRICS_ALLOWED_NETWORKS = [
    ipaddress.ip_network(n.strip())
    for n in env.list("METRICS_ALLOWED_NETWORKS", default=["127.0.0.0/8", "::1/128"])
    if n.strip()
]

DEBUG = env.bool("DEBUG", default=True)

# A development key is only ever used with DEBUG on; production must set its own.
_DEV_SECRET_KEY = "dev-only-key-never-used-in-production-5a1f0e7c2b9d4e8f"
SECRET_KEY = env.str("SECRET_KEY", default=_DEV_SECRET_KEY if DEBUG else "")
if not SECRET_KEY:
    raise environ.ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.sites",
    "channels",
    "allauth",
    # allauth's account app, labelled "E-mail addresses" so admin shows one "Accounts" (ours)
    "dominoes_site.allauth_apps.AllauthAccountConfig",
    "dominoes_site",
    "accounts",
    "tables",
    "gym",
    "chat",
    "history",
    "ledger",
    "tournaments",
    "ratings",
    "house",
    "staff",
    "coach",
    "puzzles",
    "social",
    "clubs",
    "pairing",
    "privacy",
    "oauth2_provider",
    "api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Content-Security-Policy and Permissions-Policy on every page (dominoes_site/headers.py)
    "dominoes_site.headers.SecurityHeadersMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.AgeGateMiddleware",
    "accounts.middleware.UserPreferencesMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "api.middleware.RateLimitHeadersMiddleware",
]

ROOT_URLCONF = "dominoes_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "dominoes_site.context_processors.site",
            ],
        },
    },
]

WSGI_APPLICATION = None
ASGI_APPLICATION = "dominoes_site.asgi.application"

# --- Database -----------------------------------------------------------------------------
# SQLite: WAL so readers never wait for the writer, IMMEDIATE transactions so a write
# transaction takes the lock up front (no deadlock on upgrade), and a busy timeout.
SQLITE_OPTIONS = {
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
    "init_command": (
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=20000;"
    ),
}

DATABASE_URL = env.str("DATABASE_URL", default="")
if DATABASE_URL:
    DATABASES = {"default": env.db_url_config(DATABASE_URL)}
    # Tests close every connection after each use so that no thread holds the test database.
    DATABASES["default"]["CONN_MAX_AGE"] = 0 if TESTING else env.int("CONN_MAX_AGE", default=60)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": VAR_DIR / "db.sqlite3",
            "OPTIONS": SQLITE_OPTIONS,
            "TEST": {"NAME": VAR_DIR / "test-db.sqlite3"},
            # Keep the connection: opening one runs the PRAGMAs again on every socket message.
            # Tests close every connection after each use so no thread holds the test database.
            "CONN_MAX_AGE": 0 if TESTING else None,
        }
    }
USING_POSTGRES = DATABASES["default"]["ENGINE"].endswith("postgresql")

# --- Redis, channel layer, broker -----------------------------------------------------------
REDIS_URL = env.str("REDIS_URL", default="")
# Read timeout of every Redis connection: longer than any blocking command the house sends
# (the channel layer's 5 s pop, the broker's 1 s pop), short enough to notice a dead server.
REDIS_SOCKET_TIMEOUT = 15
# Connections each daphne's channel layer may hold at once (one is its blocking receive).
REDIS_LAYER_CONNECTIONS = env.int("REDIS_LAYER_CONNECTIONS", default=64)
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # The list-based layer: a message waits in Redis until its consumer takes it
            # (pub/sub delivers at most once, and lost updates under test).
            # On a blocking pool of a stated size (dominoes_site/channel_layer.py).
            "BACKEND": "dominoes_site.channel_layer.HouseRedisChannelLayer",
            "CONFIG": {
                "hosts": [
                    {
                        "address": REDIS_URL,
                        # The layer's receive is a blocking pop of up to 5 s (`brpop_timeout`):
                        # a read timeout must be longer, or every quiet socket dies at 5 s.
                        "socket_timeout": REDIS_SOCKET_TIMEOUT,
                        "socket_connect_timeout": 5,
                        "socket_keepalive": True,
                        "health_check_interval": 30,
                        # Per daphne (one event loop): a burst of group_adds waits its turn
                        # for up to `timeout` seconds instead of failing.
                        "max_connections": REDIS_LAYER_CONNECTIONS,
                        "timeout": 20,
                    }
                ],
                "prefix": env.str("CHANNELS_PREFIX", "dominoes"),
                # All of a daphne's sockets share one queue in Redis: room for a busy moment.
                "capacity": 5000,
            },
        }
    }
    CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=REDIS_URL)
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
        "visibility_timeout": 3600,
        # kombu blocks on BRPOP for 1 s; its reads must outlast that (see REDIS_SOCKET_TIMEOUT).
        "socket_timeout": REDIS_SOCKET_TIMEOUT,
        "socket_connect_timeout": 5,
        "socket_keepalive": True,
        "health_check_interval": 30,
    }
else:
    # In memory, with Unix sockets between processes (dominoes_site/socket_layer.py).
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "dominoes_site.socket_layer.HouseSocketChannelLayer",
            "CONFIG": {"folder": str(VAR_DIR / "channels"), "expiry": 60, "capacity": 500},
        }
    }
    BROKER_DIR = VAR_DIR / "broker"
    for _sub in ("queue", "processed", "control"):
        (BROKER_DIR / _sub).mkdir(parents=True, exist_ok=True)
    # kombu's filesystem transport with atomic writes (dominoes_site/broker.py registers it).
    import dominoes_site.broker  # noqa: F401

    CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="housefs://localhost/")
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
        "polling_interval": env.float("CELERY_POLL_SECONDS", default=0.05),
    }

# --- Passwords ----------------------------------------------------------------------------------
# Django's default hashers (PBKDF2 first) everywhere but under pytest, which makes thousands of
# accounts: a quick hash there (half a second of CPU each, otherwise). The log-in limits' tests
# set their own.
if TESTING:
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# --- Cache (rate limits, presence) -----------------------------------------------------------
from redis.backoff import NoBackoff as _NoBackoff  # noqa: E402
from redis.retry import Retry as _QuickRetry  # noqa: E402

if REDIS_URL:
    CACHES = {
        "default": {
            # Answers as an empty cache while Redis is away (dominoes_site/cache.py): some of
            # it is read on a daphne's event loop, which must not wait on a dead server.
            "BACKEND": "dominoes_site.cache.HouseRedisCache",
            "LOCATION": REDIS_URL,
            # No blocking commands here: short timeouts, and one quick retry on a dropped
            # connection (a restarted Redis), not redis-py's seconds of back-off.
            "OPTIONS": {
                "socket_timeout": 2,
                "socket_connect_timeout": 1,
                "health_check_interval": 30,
                "retry": _QuickRetry(_NoBackoff(), 1),
            },
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- The public API's OAuth 2 (django-oauth-toolkit; docs/api.md) ---------------------------
OAUTH2_PROVIDER = {
    # What an app may ask for: the same scopes as personal tokens (api.models.Scope).
    "SCOPES": {
        "read": "Read your account, ratings and games",
        "play": "Move in your games, and watch them live",
        "challenge": "Send and answer challenges, and join Play now",
        "tournaments": "Register for tournaments and withdraw",
    },
    "DEFAULT_SCOPES": ["read"],
    "PKCE_REQUIRED": True,
    # Tokens are kept as their SHA-256 only (RFC 9700).
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "ACCESS_TOKEN_EXPIRE_SECONDS": 3600 * 24,
    "REFRESH_TOKEN_EXPIRE_SECONDS": 3600 * 24 * 60,
    "ROTATE_REFRESH_TOKEN": True,
    # RFC 9700 (the OAuth 2.0 security BCP) in full: no implicit or password grant, PKCE with
    # S256 only, access tokens only in the Authorization header, `iss` in the authorization
    # response, a replayed refresh token revokes its whole family, https redirect URIs only.
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "ALLOWED_REDIRECT_URI_SCHEMES": ["https"],
}

# --- Celery ---------------------------------------------------------------------------------
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
# Beat with a standby (dominoes_site/beat.py, docs/deploy.md): with Redis, every beat takes a
# lease before it sends, so only one of several sends at any time; without Redis, Celery's own.
CELERY_BEAT_SCHEDULER = "dominoes_site.beat:LeaderScheduler"
BEAT_LEASE_SECONDS = env.float("BEAT_LEASE_SECONDS", default=15.0)
if BEAT_LEASE_SECONDS < 1:
    raise environ.ImproperlyConfigured("BEAT_LEASE_SECONDS must be at least 1.")
BEAT_LEASE_KEY = env.str("BEAT_LEASE_KEY", default="dominoes:beat")
# The static beat schedule. One beat at a time sends it, the leader (see docs/deploy.md).
CELERY_BEAT_SCHEDULE = {
    "age-gate-daily": {
        "task": "accounts.tasks.age_gate_check",
        "schedule": crontab(hour=3, minute=17),
    },
    # closed accounts' hashed e-mails past their waiting time are forgotten (docs/privacy.md)
    "closed-emails-daily": {
        "task": "accounts.tasks.closed_emails_forget",
        "schedule": crontab(hour=3, minute=23),
    },
    # house players: a turn whose task was lost (a worker restart, a clock's dumbbell) is
    # played by this sweep (house/services.py)
    "house-players-sweep": {"task": "house.tasks.house_sweep", "schedule": 5.0},
    # Finished games not yet mined for puzzles, handed to the workers (puzzles/services.py).
    "puzzles-mine-sweep": {
        "task": "puzzles.tasks.mine_sweep",
        "schedule": 60.0,
        "options": {"expires": 50},
    },
    # A practice game whose player never came is called off after PRACTICE_UNOPENED_MINUTES.
    "practice-unopened-sweep": {
        "task": "house.tasks.practice_unopened_sweep",
        "schedule": 300.0,
        "options": {"expires": 240},
    },
    # The Gym clock: each turn's timer is a task with an ETA; this sweep catches a lost one.
    "gym-clock-sweep": {
        "task": "tables.tasks.clock_sweep",
        "schedule": env.float("GYM_CLOCK_SWEEP_SECONDS", default=1.0),
        "options": {"expires": 5},
    },
    # Seats held for players who left: stale sockets dropped, forfeits when the grace runs out.
    "seat-grace-sweep": {
        "task": "tables.tasks.grace_sweep",
        "schedule": 5.0,
        "options": {"expires": 10},
    },
    # Open tables nobody has been at for 15 minutes leave the lobby (tables/idle.py).
    "idle-tables-close": {
        "task": "tables.tasks.idle_tables_close",
        "schedule": 60.0,
        "options": {"expires": 50},
    },
    # Game history: a finished game's players' records are written when it ends; this sweep
    # catches a game any other path finished.
    "history-archive-sweep": {
        "task": "history.tasks.archive_sweep",
        "schedule": 300.0,
        "options": {"expires": 240},
    },
    # --- ledger (issue 7) ---
    "ledger-reconcile-nightly": {
        "task": "ledger.tasks.reconcile_nightly",
        "schedule": crontab(hour=3, minute=41),
    },
    # Tournaments: check-in, starts, tables, no-shows, results, rounds and prizes (idempotent).
    "tournament-sweep": {
        "task": "tournaments.tasks.sweep",
        "schedule": 3.0,
        "options": {"expires": 10},
    },
    # Series: each occurrence's event made once, open_ahead_hours before it starts.
    "tournament-series-sweep": {
        "task": "tournaments.tasks.series_sweep",
        "schedule": 60.0,
        "options": {"expires": 50},
    },
    # Quick pairing: wider ranges as waits grow, seats of players not ready in time, house
    # players for those who asked (pairing/services.py; a join pairs its own pool at once).
    "pairing-sweep": {
        "task": "pairing.tasks.pairing_sweep",
        "schedule": 1.0,
        "options": {"expires": 5},
    },
}
# A player whose connection drops mid-game keeps their seat this long (seconds); one who closed
# the page on purpose, less.
LEAVE_GRACE_SECONDS = env.int("LEAVE_GRACE_SECONDS", default=60)
LEAVE_GRACE_CLOSED_SECONDS = env.int("LEAVE_GRACE_CLOSED_SECONDS", default=20)
# A move that arrives this long after its turn's deadline still counts (network delay).
GYM_CLOCK_GRACE_MS = env.int("GYM_CLOCK_GRACE_MS", default=300)
# How long past the deadline and grace the timer waits for a move that arrived in time but is
# still being carried out (tables/services.py clock_timer_slack).
GYM_CLOCK_TIMER_SLACK_MS = env.int("GYM_CLOCK_TIMER_SLACK_MS", default=1000)
# A socket's database work runs in its event loop's own thread (dominoes_site/db_hop.py);
# false: in channels' database thread, as database_sync_to_async does.
SOCKET_DATABASE_INLINE = env.bool("SOCKET_DATABASE_INLINE", default=True)
# A daphne freezes what survives each full garbage collection and makes one whole collection
# every this many seconds (dominoes_site/gc_policy.py); 0: Python's own collector as it is.
SERVER_GC_FULL_SECONDS = env.float("SERVER_GC_FULL_SECONDS", default=0.0 if TESTING else 600.0)

# --- House players ---------------------------------------------------------------------------
# Seconds a house player waits before it acts, so people can follow the game (0 under tests).
HOUSE_PLAYER_PACE_SECONDS = env.float("HOUSE_PLAYER_PACE_SECONDS", default=0.0 if TESTING else 1.0)
# A practice game whose player made no move and has not been at the table this long after it
# started is called off (house.services.practice_unopened_sweep, every 5 minutes).
PRACTICE_UNOPENED_MINUTES = env.int("PRACTICE_UNOPENED_MINUTES", default=30)

# --- Accounts -------------------------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
SITE_ID = 1
LOGIN_REDIRECT_URL = "home"
ACCOUNT_LOGOUT_REDIRECT_URL = "home"
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_USER_MODEL_USERNAME_FIELD = None
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_EMAIL_VERIFICATION = env.str("ACCOUNT_EMAIL_VERIFICATION", default="optional")
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_FORMS = {
    "signup": "accounts.forms.SignupForm",
    "login": "accounts.forms.LoginForm",
    "add_email": "accounts.forms.AddEmailForm",
}
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[Dominologist] "
# Log-in limits count wrong passwords, not log-ins (accounts/login_limits.py, for the site's log-in
# and the admin's): allauth's own "login_failed" held a place for every log-in until it succeeded,
# and "login" counted every attempt, so a club logging in together from one address was refused.
ACCOUNT_RATE_LIMITS = {
    "login": None,
    "login_failed": None,
    "login_failed_account": "5/5m/key",
    "login_failed_address": "10/m/ip",
}
# How long a log-in waits for a place on those limits while every place is held by log-ins still
# being checked (they may prove right and give theirs back), before it is refused as too many.
LOGIN_PLACE_WAIT_SECONDS = env.float("LOGIN_PLACE_WAIT_SECONDS", default=10.0)
# Sign-up is refused for 24 hours in a browser that declared an age under 18.
AGE_RETRY_BLOCK_SECONDS = 24 * 60 * 60
# Optional: days after sign-up within which staff must verify an account's age (off when unset).
AGE_VERIFY_WITHIN_DAYS = env.int("AGE_VERIFY_WITHIN_DAYS", default=None)
MINIMUM_AGE = 18
# Your own data (docs/privacy.md): a closed account's e-mail may sign up again after this many
# days; a player may download their data this many times an hour.
CLOSED_EMAIL_WAIT_DAYS = 30
DATA_EXPORTS_PER_HOUR = 3

# --- The ledger (play money only) ------------------------------------------------------------
# What a new player is given, and the allowance they may claim once a day (whole numbers, >= 0).
LEDGER_SIGNUP_DOLLARS = env.int("LEDGER_SIGNUP_DOLLARS", default=1000)
LEDGER_SIGNUP_BOOKS = env.int("LEDGER_SIGNUP_BOOKS", default=50)
LEDGER_ALLOWANCE_DOLLARS = env.int("LEDGER_ALLOWANCE_DOLLARS", default=100)
LEDGER_ALLOWANCE_BOOKS = env.int("LEDGER_ALLOWANCE_BOOKS", default=10)
for _name in (
    "LEDGER_SIGNUP_DOLLARS",
    "LEDGER_SIGNUP_BOOKS",
    "LEDGER_ALLOWANCE_DOLLARS",
    "LEDGER_ALLOWANCE_BOOKS",
):
    if globals()[_name] < 0:
        raise environ.ImproperlyConfigured(f"{_name} is a whole number, 0 or more.")

# --- E-mail ---------------------------------------------------------------------------------
EMAIL_URL = env.str("EMAIL_URL", default="")
if EMAIL_URL:
    vars().update(env.email_url("EMAIL_URL"))
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Dominologist <house@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# Where players write to the staff (shown on the password-reset and account pages): by default
# the address the house's e-mails come from.
SUPPORT_EMAIL = env.str("SUPPORT_EMAIL", default="") or parseaddr(DEFAULT_FROM_EMAIL)[1]

# --- Internationalisation -------------------------------------------------------------------
LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("es", _("Spanish"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
# One date format across the site, "1 Dec 2026, 14:05" in every language (dominoes_site/formats).
FORMAT_MODULE_PATH = ["dominoes_site.formats"]

# --- Static files ---------------------------------------------------------------------------
STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "static"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG
MEDIA_ROOT = VAR_DIR / "media"
MEDIA_URL = "/media/"

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Security (production) ------------------------------------------------------------------
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
    SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=True)
    ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https"

# --- Logging --------------------------------------------------------------------------------
# LOG_FORMAT=json: one JSON object a line (time, level, logger, message, process, and the
# exception's traceback), for a log collector; plain text otherwise.
LOG_FORMAT = env.str("LOG_FORMAT", default="plain")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s %(message)s %(process)d",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        },
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json" if LOG_FORMAT == "json" else "plain",
        }
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.channels.server": {"level": "WARNING"},
        "daphne": {"level": "WARNING"},
    },
}

ADMIN_SITE_HEADER = "Dominologist house office"
