from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from gym.services import WorkoutError, workout_done
from gym.words import workout_words


@login_required
@require_POST
def done(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        workout = workout_done(workout_id=pk, user=request.user)
    except WorkoutError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            _("Well done: %(workout)s marked done.")
            % {"workout": workout_words(workout.kind, workout.amount)},
        )
    return redirect("accounts:my_profile")
