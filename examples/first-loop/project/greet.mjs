export const greet = (name) => `hello ${name}`;
export const shout = (name) => `${name.toUpperCase()}!`;
export const initials = (name) => name.split(' ').map((word) => word[0]).join('');
