"""Forms of the account pages. They check the shape of input; the services decide the rest."""

from __future__ import annotations

import hashlib

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.cache import cache

from accounts.models import (
    LIST_NAME_MAX_LENGTH,
    NOTE_MAX_LENGTH,
    ApiToken,
    DigestSettings,
    ListItem,
)
from accounts.services.exports import FORMATS
from accounts.services.imports import IMPORT_FORMATS

LOGIN_FAILURES_ALLOWED = 10
LOGIN_FAILURE_WINDOW = 15 * 60  # seconds


class SignupForm(UserCreationForm):
    email = forms.EmailField(
        required=False,
        help_text="Optional, but without it a forgotten password cannot be reset.",
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def clean_email(self) -> str:
        email = self.cleaned_data.get("email", "").strip()
        if email and get_user_model().objects.filter(email__iexact=email).exists():
            raise forms.ValidationError("An account with this email address exists already.")
        return email


class LoginForm(AuthenticationForm):
    """Django's login form, refusing further tries after repeated failures from one address for
    one username (a password-guessing brake; the window is LOGIN_FAILURE_WINDOW)."""

    def _failure_key(self) -> str:
        address = self.request.META.get("REMOTE_ADDR", "") if self.request else ""
        username = (self.data.get("username") or "").strip().lower()
        digest = hashlib.sha256(f"{address}|{username}".encode()).hexdigest()[:32]
        return f"accounts:login-failures:{digest}"

    def clean(self):
        key = self._failure_key()
        if cache.get(key, 0) >= LOGIN_FAILURES_ALLOWED:
            raise forms.ValidationError(
                "Too many failed sign-in attempts. Wait a quarter of an hour, "
                "or reset your password.",
                code="throttled",
            )
        try:
            return super().clean()
        except forms.ValidationError:
            if not cache.add(key, 1, timeout=LOGIN_FAILURE_WINDOW):
                try:
                    cache.incr(key)
                except ValueError:  # expired between add and incr
                    cache.add(key, 1, timeout=LOGIN_FAILURE_WINDOW)
            raise


class ListNameForm(forms.Form):
    name = forms.CharField(max_length=LIST_NAME_MAX_LENGTH, strip=True)


class ItemEditForm(forms.Form):
    note = forms.CharField(
        max_length=NOTE_MAX_LENGTH,
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    read_state = forms.ChoiceField(choices=ListItem.ReadState.choices)


class SaveForm(forms.Form):
    arxiv_id = forms.CharField(max_length=300)
    list = forms.IntegerField(required=False, min_value=1)
    note = forms.CharField(max_length=NOTE_MAX_LENGTH, required=False, strip=False)


class ImportForm(forms.Form):
    format = forms.ChoiceField(
        choices=[
            (name, label)
            for name, label in zip(
                IMPORT_FORMATS,
                (
                    "Detect from the content",
                    "BibTeX",
                    "arXiv ids or URLs, one per line",
                    "CSV (Paperscope or Zotero)",
                ),
                strict=True,
            )
        ],  # fmt: skip
        initial="auto",
    )
    file = forms.FileField(required=False)
    text = forms.CharField(required=False, strip=False, widget=forms.Textarea(attrs={"rows": 5}))
    new_list = forms.CharField(
        max_length=LIST_NAME_MAX_LENGTH,
        required=False,
        help_text="Import into a new list with this name instead.",
    )

    def clean(self):
        data = super().clean()
        if not data.get("file") and not (data.get("text") or "").strip():
            raise forms.ValidationError("Choose a file or paste the text to import.")
        return data


class TokenCreateForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="Say what it is for, e.g. “laptop script”.")
    scopes = forms.MultipleChoiceField(
        choices=ApiToken.Scope.choices,
        widget=forms.CheckboxSelectMultiple,
        initial=["read"],
    )


class AccountDeleteForm(forms.Form):
    password = forms.CharField(
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"})
    )


class DigestSettingsForm(forms.Form):
    frequency = forms.ChoiceField(
        label="How often",
        choices=[
            ("daily", "Daily, after each arXiv announcement (Sunday to Thursday evenings)"),
            ("weekly", "Weekly"),
            ("off", "Off"),
        ],
        widget=forms.RadioSelect,
    )
    weekday = forms.TypedChoiceField(
        label="Weekly on",
        choices=DigestSettings.Weekday.choices,
        coerce=int,
        help_text="Weekly digests go out in the evening, US Eastern time.",
    )
    muted = forms.MultipleChoiceField(
        label="Leave these topics out of the digest",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="They stay in your feed.",
    )

    def __init__(self, *args, follows=(), **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["muted"].choices = [(f.topic.slug, f.topic.name) for f in follows]


EXPORT_FORMAT_LABELS = {
    "bibtex": "BibTeX (.bib)",
    "ris": "RIS (.ris)",
    "csl-json": "CSL-JSON (.json)",
    "csv": "CSV (.csv)",
}
assert set(EXPORT_FORMAT_LABELS) == set(FORMATS)
