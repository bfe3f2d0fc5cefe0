"""One APIRouter per simulation family."""
