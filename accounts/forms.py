"""Forms of the account pages. They check the shape of input; the services decide the rest."""

from __future__ import annotations

from confusable_homoglyphs import confusables
from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, PasswordChangeForm, UserCreationForm

from accounts.models import (
    LIST_NAME_MAX_LENGTH,
    NOTE_MAX_LENGTH,
    ApiToken,
    DigestSettings,
    ListItem,
)
from accounts.services import brakes
from accounts.services.exports import FORMATS
from accounts.services.imports import IMPORT_FORMATS
from accounts.throttling import client_address

LOGIN_FAILURES_ALLOWED = brakes.LOGIN_FAILURES_ALLOWED


class SignupForm(UserCreationForm):
    email = forms.EmailField(
        required=False,
        help_text="Optional, but without it a forgotten password cannot be reset.",
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def clean_username(self) -> str:
        username = super().clean_username()
        # Django's validator allows any letters, so "pаypal" with a Cyrillic а passes for
        # "paypal" on the page. One script per name (digits and _@.+- belong to every script).
        if confusables.is_mixed_script(username, allowed_aliases=["COMMON"]):
            raise forms.ValidationError(
                "This username mixes letters of different scripts (say Latin and Cyrillic), "
                "which would let it pass for another name. Use letters of one script.",
                code="mixed_script",
            )
        return username

    def clean_email(self) -> str:
        email = self.cleaned_data.get("email", "").strip()
        if email and get_user_model().objects.filter(email__iexact=email).exists():
            raise forms.ValidationError("An account with this email address exists already.")
        return email


class LoginBrakeMixin:
    """Refuses further tries after repeated failures from one client address for one account
    (a password-guessing brake; accounts.services.brakes). The address is the one the trusted
    proxy saw (NUM_PROXIES), as for the API throttles."""

    def clean(self):
        address = client_address(self.request) if self.request else ""
        username = self.data.get("username") or ""
        if brakes.login_brake_engaged(address=address, username=username):
            raise forms.ValidationError(
                "Too many failed sign-in attempts. Wait a quarter of an hour, "
                "or reset your password.",
                code="throttled",
            )
        try:
            return super().clean()
        except forms.ValidationError:
            brakes.login_failure_record(address=address, username=username)
            raise


class LoginForm(LoginBrakeMixin, AuthenticationForm):
    """The site's sign-in form."""


class AdminLoginForm(LoginBrakeMixin, AdminAuthenticationForm):
    """/admin/login/, with the same brake (accounts.admin installs it)."""


class PasswordChangeWithTokensForm(PasswordChangeForm):
    """Django's password change, offering (ticked) to revoke the account's API tokens."""

    revoke_tokens = forms.BooleanField(required=False, initial=True)

    def __init__(self, user, *args, **kwargs) -> None:
        super().__init__(user, *args, **kwargs)
        active = ApiToken.objects.filter(user=user, revoked_at=None).count()
        if active:
            self.fields["revoke_tokens"].label = (
                f"Also disconnect the browser extension and scripts: revoke your {active} API "
                f"token{'s' if active != 1 else ''}"
            )
        else:
            del self.fields["revoke_tokens"]


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
