"""The "Tournament organizers" group (accounts made it first; made here again if missing),
with the permissions to look at tournaments in admin (read-only there: organizers run their
events on the site's own pages, and membership of the group is what lets them)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

ORGANIZERS = "Tournament organizers"
PERMISSIONS = ["view_tournament", "view_entry", "view_match"]


def forwards(apps, schema_editor):
    config = apps.get_app_config("tournaments")
    config.models_module = True
    create_permissions(config, verbosity=0)
    config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=ORGANIZERS)
    group.permissions.add(
        *Permission.objects.filter(content_type__app_label="tournaments", codename__in=PERMISSIONS)
    )


def backwards(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name=ORGANIZERS).first()
    if group is not None:
        group.permissions.remove(
            *Permission.objects.filter(content_type__app_label="tournaments")
        )


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0001_initial"),
        ("accounts", "0002_house_groups_and_site"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
