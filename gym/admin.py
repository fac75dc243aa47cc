from django.contrib import admin
from django.http import HttpRequest

from gym.models import WorkoutOwed


@admin.register(WorkoutOwed)
class WorkoutOwedAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """The workout log: read-only for staff (players mark their own workouts done)."""

    list_display = [
        "user",
        "game",
        "kind",
        "amount",
        "dumbbells",
        "skunked",
        "created_at",
        "done_at",
    ]
    list_filter = ["kind", "skunked", ("done_at", admin.EmptyFieldListFilter)]
    search_fields = ["user__display_name", "user__email"]
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in WorkoutOwed._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: WorkoutOwed | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: WorkoutOwed | None = None) -> bool:
        return False
